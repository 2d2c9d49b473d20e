import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LLAMACPP_SLOTS, LLAMACPP_SLOTS_DISABLED, LLAMACPP_SLOTS_WITH_STATE, llamaSlot } from './engine-queue-shapes.fixture.js';
import { MAX_LLAMACPP_SLOTS, parseLlamaSlots } from './llamacpp-slots.js';

describe("reading llama.cpp's /slots", () => {
  const rows: { name: string; body: unknown; slots: { slots: number; busy: number | null } | null }[] = [
    { name: 'a current build: slots are the array, busy ones have is_processing', body: LLAMACPP_SLOTS, slots: { slots: 4, busy: 2 } },
    { name: 'an older build that says state instead', body: LLAMACPP_SLOTS_WITH_STATE, slots: { slots: 2, busy: 1 } },
    { name: 'a single idle slot (-np 1)', body: [llamaSlot(0, false)], slots: { slots: 1, busy: 0 } },
    { name: 'entries that are not objects are dropped, the rest kept', body: [null, 3, 'slot', [], llamaSlot(0, true), true], slots: { slots: 1, busy: 1 } },
    {
      name: 'a slot whose flag is unreadable still counts as a slot',
      body: [{ id: 0, is_processing: 'yes' }, llamaSlot(1, true)],
      slots: { slots: 2, busy: 1 },
    },
    {
      name: 'slots with no readable flag at all: slot count known, busy not said',
      body: [{ id: 0 }, { id: 1, state: 'busy' }],
      slots: { slots: 2, busy: null },
    },
    { name: 'the error a --no-slots server answers', body: LLAMACPP_SLOTS_DISABLED, slots: null },
    { name: 'an empty array', body: [], slots: null },
    { name: 'an array of junk only', body: [null, 1, 'x'], slots: null },
    { name: 'not JSON at all (the reader passes undefined)', body: undefined, slots: null },
    { name: 'a number', body: 4, slots: null },
    { name: 'a list longer than any server runs', body: Array.from({ length: MAX_LLAMACPP_SLOTS + 1 }, (_, i) => llamaSlot(i, false)), slots: null },
  ];
  for (const row of rows) {
    it(`reads ${row.name}`, () => {
      assert.deepEqual(parseLlamaSlots(row.body), row.slots);
    });
  }

  it('reads the most slots it believes', () => {
    assert.deepEqual(parseLlamaSlots(Array.from({ length: MAX_LLAMACPP_SLOTS }, (_, i) => llamaSlot(i, i % 2 === 0))), {
      slots: MAX_LLAMACPP_SLOTS,
      busy: MAX_LLAMACPP_SLOTS / 2,
    });
  });
});
