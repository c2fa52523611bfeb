// A crash, as the page says it: the action of the event a crashed session ends with
// (`@@rewind/crashed`, written by the app's next run from its crash journal).

/// What a crashed event's action says, in a few words: `SIGILL in add (seq 40) · 0 lost`,
/// `SIGSEGV between actions`.
export function crashText(crash) {
  if (!crash || typeof crash !== 'object') return 'crashed';
  const signal = typeof crash.signal === 'string' ? crash.signal : 'a signal';
  const reducing = crash.reducing && typeof crash.reducing === 'object' ? crash.reducing : null;
  let text = signal;
  if (!reducing) text += ' between actions';
  else {
    const seq = Number.isInteger(reducing.seq) ? ` (seq ${reducing.seq})` : '';
    text += typeof reducing.type === 'string' ? ` in ${reducing.type}${seq}` : ` in a reduce${seq}`;
  }
  if (Number.isInteger(crash.lost) && crash.lost > 0) text += ` · ${crash.lost} recorded actions lost`;
  return text;
}
