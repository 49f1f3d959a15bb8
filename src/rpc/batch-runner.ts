/**
 * How a 2025-03-26 batch's items run (legacy.ts): a few at a time, within a budget for the replies
 * gathered. Any item may call an upstream or read a large skill file, and a hundred large replies
 * made at once would not fit an isolate's memory. An item not started once the replies passed the
 * budget is answered on its own terms (`over`): an error asking for it to be sent again alone.
 * Replies keep the items' order; `null` is an item with no reply (a notification or a response).
 */

/** Items of one batch running at once: no more than as many single requests. */
export const BATCH_CONCURRENCY = 8;
/** Characters of replies a batch gathers before the items still waiting are turned away. */
export const MAX_BATCH_REPLY_CHARS = 8 * 1024 * 1024;

type Reply = string | null;

export async function runBatch(
  items: readonly unknown[],
  run: (item: unknown) => Reply | Promise<Reply>,
  over: (item: unknown) => Reply,
): Promise<Reply[]> {
  const replies: Reply[] = new Array<Reply>(items.length).fill(null);
  let next = 0;
  let gathered = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      if (gathered > MAX_BATCH_REPLY_CHARS) {
        replies[i] = over(items[i]);
        continue;
      }
      const reply = await run(items[i]);
      replies[i] = reply;
      gathered += reply?.length ?? 0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, items.length) }, lane));
  return replies;
}
