import { painter } from './output.js';

// The daemon's log lines on a terminal: pino writes one JSON object per line; a person reading
// a terminal gets each as one short line instead (time, then the request or the message).
//   12:04:31 POST /v1/calculate 200 14 ms
//   12:04:33 ERROR unhandled error: RangeError: Maximum call stack size exceeded (request 2e39…)
// Stack traces and the other fields stay in the JSON form (RULES_LOG_FORMAT=json).

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

interface LogRecord {
  level: number;
  time: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { type?: string; message?: string };
}

/** A pino destination that writes each record as one readable line to `out`. */
export function readableLogStream(out: NodeJS.WriteStream): { write(line: string): void } {
  const paint = painter(out);
  const statusStyle = (status: number) => (status >= 500 ? 'red' : status >= 400 ? 'yellow' : 'green');
  const format = (r: LogRecord): string => {
    const time = paint('dim', new Date(r.time).toTimeString().slice(0, 8));
    const label = LEVELS[r.level] ?? String(r.level);
    const level = r.level >= 50 ? paint('red', label) : r.level >= 40 ? paint('yellow', label) : label;
    if (r.req?.method && r.res?.statusCode !== undefined) {
      const status = paint(statusStyle(r.res.statusCode), String(r.res.statusCode));
      return `${time} ${r.level > 30 ? `${level} ` : ''}${r.req.method} ${r.req.url} ${status} ${Math.round(r.responseTime ?? 0)} ms`;
    }
    const err = r.err ? `: ${r.err.type ?? 'Error'}: ${r.err.message ?? ''}` : '';
    return `${time} ${level} ${r.msg ?? ''}${err}${r.reqId ? paint('dim', ` (request ${r.reqId})`) : ''}`;
  };
  return {
    write(line: string) {
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        out.write(line);
        return;
      }
      out.write(`${format(record).replace(/[\r\n]+/g, ' ')}\n`);
    },
  };
}
