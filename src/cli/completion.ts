/**
 * `cihub completion bash|zsh|fish`: shell completion scripts generated from the command tree
 * itself, so a command or flag added to the CLI completes without anyone editing a script.
 * Each script finds the deepest command path among the words typed so far and offers that
 * command's subcommands and flags (with their descriptions where the shell shows them).
 */
import type { Command } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** One command of the tree as the completion scripts see it. */
export interface CompletionNode {
  /** Command names from the root, e.g. ['pool', 'status']; [] for cihub itself. */
  readonly path: readonly string[];
  readonly description: string;
  readonly subcommands: readonly CompletionNode[];
  readonly flags: readonly { readonly long: string; readonly takesValue: boolean; readonly description: string }[];
}

export function completionTree(cmd: Command, path: readonly string[] = []): CompletionNode {
  const flags = cmd.options
    .filter((o) => o.long !== undefined && !o.hidden)
    .map((o) => ({ long: o.long as string, takesValue: o.required || o.optional, description: o.description }));
  return {
    path,
    description: cmd.description(),
    subcommands: cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => completionTree(c, [...path, c.name()])),
    flags: [...flags, { long: '--help', takesValue: false, description: 'show help for this command' }],
  };
}

function allNodes(node: CompletionNode): CompletionNode[] {
  return [node, ...node.subcommands.flatMap(allNodes)];
}

/** A word inside single quotes in sh, bash and zsh. */
const shQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
/** A word inside single quotes in fish, where \ and ' are the escapes. */
const fishQuote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** The text a completion shows on one line: first line only. */
const oneLine = (text: string): string => text.split('\n')[0]!.trim();

export function completionScript(shell: Shell, root: CompletionNode): string {
  switch (shell) {
    case 'bash':
      return bashScript(root);
    case 'zsh':
      return zshScript(root);
    case 'fish':
      return fishScript(root);
  }
}

/** The shared walk: the deepest known command path among the words before the cursor. */
function pathPatterns(root: CompletionNode): string {
  return allNodes(root)
    .filter((n) => n.path.length > 0)
    .map((n) => shQuote(n.path.join(' ')))
    .join('|');
}

function bashScript(root: CompletionNode): string {
  const cases = allNodes(root)
    .map((n) => `    ${shQuote(n.path.join(' '))}) words=${shQuote([...n.subcommands.map((s) => s.path.at(-1)!), ...n.flags.map((f) => f.long)].join(' '))} ;;`)
    .join('\n');
  return `# cihub completion for bash. Load it with:  source <(cihub completion bash)
_cihub() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="" next w i words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    next="\${cmdpath:+$cmdpath }$w"
    case "$next" in
    ${pathPatterns(root)}) cmdpath="$next" ;;
    esac
  done
  case "$cmdpath" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _cihub cihub
`;
}

function zshScript(root: CompletionNode): string {
  const entry = (name: string, description: string) => shQuote(`${name.replace(/:/g, '\\:')}:${oneLine(description)}`);
  const cases = allNodes(root)
    .map((n) => {
      const entries = [...n.subcommands.map((s) => entry(s.path.at(-1)!, s.description)), ...n.flags.map((f) => entry(f.long, f.description))];
      return `    (${shQuote(n.path.join(' '))}) entries=(${entries.join(' ')}) ;;`;
    })
    .join('\n');
  // `path` is zsh's array twin of $PATH, so the walk keeps its own name.
  return `#compdef cihub
# cihub completion for zsh. Load it with:  source <(cihub completion zsh)   (after compinit)
_cihub() {
  local cmdpath="" next w i
  local -a entries
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    next="\${cmdpath:+$cmdpath }$w"
    case "$next" in
    (${pathPatterns(root)}) cmdpath="$next" ;;
    esac
  done
  case "$cmdpath" in
${cases}
  esac
  _describe -t commands 'cihub' entries
}
compdef _cihub cihub
`;
}

function fishScript(root: CompletionNode): string {
  const lines = ['# cihub completion for fish. Load it with:  cihub completion fish | source', 'complete -c cihub -f'];
  for (const node of allNodes(root)) {
    const childNames = node.subcommands.map((s) => s.path.at(-1)!);
    // At the root: no subcommand typed yet. Below it: this node's path typed, none of its children.
    const here =
      node.path.length === 0
        ? '__fish_use_subcommand'
        : [`__fish_seen_subcommand_from ${node.path.at(-1)}`, ...node.path.slice(0, -1).map((p) => `__fish_seen_subcommand_from ${p}`)].join('; and ');
    const beforeChild = childNames.length > 0 && node.path.length > 0 ? `${here}; and not __fish_seen_subcommand_from ${childNames.join(' ')}` : here;
    for (const child of node.subcommands) {
      lines.push(`complete -c cihub -n ${fishQuote(beforeChild)} -a ${fishQuote(child.path.at(-1)!)} -d ${fishQuote(oneLine(child.description))}`);
    }
    for (const flag of node.flags) {
      lines.push(
        `complete -c cihub -n ${fishQuote(beforeChild)} -l ${flag.long.replace(/^--/, '')}${flag.takesValue ? ' -r' : ''} -d ${fishQuote(oneLine(flag.description))}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
