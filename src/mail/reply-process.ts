import { fileRows, mailTables, OverLimit, parseMail, type ReadableKind } from './reply-tables.ts';

/**
 * The bounded reader's process: it reads what a supplier sent — a whole mail, or one quote file — one request at a
 * time, answering over IPC. It runs with a small heap and a deadline set by its parent, so a bomb ends here (the
 * parent kills and replaces it), not in a serving process. A mail is answered in two steps (its envelope, then its
 * tables), so the parent can still tell whose reply it was when the tables are what kill this process.
 */
export type ReaderRequest = { mail: Uint8Array } | { file: Uint8Array; kind: ReadableKind };
export type ReaderAnswer =
  | { type: 'envelope'; reply: Awaited<ReturnType<typeof parseMail>>['reply'] }
  | { type: 'tables'; tables: Awaited<ReturnType<typeof mailTables>> }
  | { type: 'rows'; rows: string[][] }
  | { type: 'failed'; message: string; overLimit: boolean }
  | { type: 'done' };

const send = (answer: ReaderAnswer) =>
  new Promise<void>((resolve) => (process.send ? process.send(answer, () => resolve()) : resolve()));
const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

process.on('message', async (request: ReaderRequest) => {
  try {
    if ('mail' in request) {
      const { reply, mail } = await parseMail(buffer(request.mail));
      await send({ type: 'envelope', reply });
      await send({ type: 'tables', tables: await mailTables(mail) });
    } else await send({ type: 'rows', rows: await fileRows(request.kind, buffer(request.file)) });
  } catch (error) {
    await send({
      type: 'failed',
      message: (error as Error).message,
      overLimit: error instanceof OverLimit,
    });
  }
  await send({ type: 'done' });
});
// A reader whose parent has gone has nothing left to read.
process.once('disconnect', () => process.exit(0));
