import { boolYaml11Tag, constructFromEvents, CORE_SCHEMA, defineScalarTag, type Event, NOT_RESOLVED, parseEvents, Schema, YAML11_SCHEMA, YAMLException } from 'js-yaml';
import { RuleSpecError, positionAt } from '../diagnostics.js';

// Module files are read as YAML 1.2 core (dates stay strings), companion tests as YAML 1.1
// (unquoted dates are dates), as the reference tooling does. Duplicate keys are an error in both.

// YAML 1.1 booleans as the reference test runner (PyYAML) reads them: yes/no/on/off/true/false,
// but not the single letters y/n, which stay text (an `os_code: Y` is the letter Y).
const PY_BOOLEANS: Record<string, boolean> = {};
for (const word of ['yes', 'true', 'on']) for (const w of [word, word[0].toUpperCase() + word.slice(1), word.toUpperCase()]) PY_BOOLEANS[w] = true;
for (const word of ['no', 'false', 'off']) for (const w of [word, word[0].toUpperCase() + word.slice(1), word.toUpperCase()]) PY_BOOLEANS[w] = false;

const testBoolTag = defineScalarTag('tag:yaml.org,2002:bool', {
  implicit: true,
  implicitFirstChars: ['y', 'Y', 't', 'T', 'o', 'O', 'n', 'N', 'f', 'F'],
  resolve: (source) => (source in PY_BOOLEANS ? PY_BOOLEANS[source] : NOT_RESOLVED),
  identify: (data) => typeof data === 'boolean',
});

const TEST_SCHEMA = new Schema(YAML11_SCHEMA.tags.map((tag) => (tag === boolYaml11Tag ? testBoolTag : tag)));

/** A module's document; `onEvents` also receives the parser's events (where each node is in the text). */
export function loadModuleYaml(text: string, file: string, onEvents?: (events: Event[]) => void): unknown {
  return loadYaml(text, file, CORE_SCHEMA, onEvents);
}

export function loadTestYaml(text: string, file: string): unknown {
  return loadYaml(text, file, TEST_SCHEMA);
}

/** Nothing but blank lines and comments: an empty document, as PyYAML reads it (js-yaml refuses it, at no position).
 *  One search for a line whose first non-blank character is not `#` (splitting every module into lines cost 100 ms of a whole-corpus compile). */
const isEmpty = (text: string) => !/^[^\S\n]*[^\s#]/m.test(text);

/** js-yaml's `load`, in its two steps (events, then the document), so the events can be kept. */
function loadYaml(text: string, file: string, schema: typeof CORE_SCHEMA, onEvents?: (events: Event[]) => void): unknown {
  if (isEmpty(text)) return null;
  try {
    const events = parseEvents(text, { filename: file, maxDepth: 200 });
    const documents = constructFromEvents(events, { source: text, filename: file, schema });
    if (documents.length === 0) throw new YAMLException('expected a document, but the input is empty');
    if (documents.length > 1) throw new YAMLException('expected a single document in the stream, but found more');
    onEvents?.(events);
    return documents[0];
  } catch (err) {
    const e = err as { reason?: string; message?: string; mark?: { position?: number } };
    const reason = e.reason ?? String(e.message ?? err).split('\n')[0];
    throw new RuleSpecError('yaml_syntax', `YAML: ${reason}`, { position: positionAt(file, text, e.mark?.position ?? secondDocument(text)) });
  }
}

/** Where js-yaml gives no position (a second document in one file): the marker that starts it, else the end. */
function secondDocument(text: string): number {
  const content = text.search(/^[^\s#]/m);
  return [...text.matchAll(/^(---|\.\.\.)(?=\s|$)/gm)].map((m) => m.index).find((at) => at > content) ?? text.length;
}
