// A `node --test` reporter for the executor (executor/testreports.py reads what it
// writes): one JSON line per test started and finished, with the test's file, which
// Node's junit reporter leaves out (nodejs/node#59422). A file that fails to load also
// gives the last lines it wrote to stderr, where its error is.
const KEPT_LINES = 40;
const LINE_CHARS = 300;

function failure(error) {
  if (error === undefined || error === null) return '';
  const message = error.message ?? String(error);
  return String(message).slice(0, 2000);
}

export default async function* executorReporter(source) {
  const stderr = new Map();
  for await (const { type, data } of source) {
    if (type === 'test:stderr' && data.file) {
      const lines = stderr.get(data.file) ?? [];
      lines.push(String(data.message).slice(0, LINE_CHARS));
      stderr.set(data.file, lines.slice(-KEPT_LINES));
      continue;
    }
    if (type !== 'test:start' && type !== 'test:pass' && type !== 'test:fail') continue;
    const line = { type, name: data.name, nesting: data.nesting, file: data.file };
    if (type !== 'test:start') {
      const details = data.details ?? {};
      line.skip = data.skip ?? false; // true, or the reason given
      line.todo = data.todo ?? false;
      line.ms = details.duration_ms;
      if (type === 'test:fail') line.error = failure(details.error);
      if (data.nesting === 0 && data.name === data.file) {
        line.stderr = stderr.get(data.file) ?? [];
        stderr.delete(data.file);
      }
    }
    yield JSON.stringify(line) + '\n';
  }
}
