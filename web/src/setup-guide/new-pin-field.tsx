import { retryPinProblem } from '../actions';

/** Where a fresh PIN goes after a Hub refused one: the row's Retry sends what is typed here, never the refused PIN. */
export function NewPinField({ hub, value, refused, onChange }: { hub: string; value: string; refused: string | undefined; onChange: (pin: string) => void }) {
  const id = `new-pin-${hub.replace(/[^a-z0-9]/gi, '-')}`;
  const problem = retryPinProblem(value, refused);
  return (
    <div className="field">
      <label htmlFor={id}>New PIN from {hub}</label>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        maxLength={6}
        autoComplete="off"
        value={value}
        onChange={(e) => onChange(e.target.value.replace(/\D/g, ''))}
        aria-describedby={`${id}-help`}
        aria-invalid={problem !== null}
        style={{ width: '10rem' }}
      />
      <span id={`${id}-help`} className={`small ${problem !== null ? '' : 'muted'}`}>
        {problem ?? 'Generate a PIN on that Hub under Hub Pool → Pairing PIN and type it here. Left empty, Retry sends the request without a PIN.'}
      </span>
    </div>
  );
}
