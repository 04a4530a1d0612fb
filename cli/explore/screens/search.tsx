import { Box, type Key, Text } from 'ink';
import { useEffect, useState } from 'react';
import type { RuleSummary } from '../source.js';
import { searchQuery } from '../source.js';
import { ListPane, moved, T, useActive, useExplorer, useKeyInput, useKeys } from '../ui.js';

// Rule search with the API's semantics, results as you type; Enter opens the selected rule.

/** The query box as it is edited: its text and the cursor's place in it. */
interface QueryText {
  text: string;
  at: number;
}

/** A key typed into the box: text is inserted at the cursor, Backspace deletes before it, ←/→ move it. */
function typed(box: QueryText, input: string, key: Key): QueryText {
  const { text, at } = box;
  if (key.backspace || key.delete) return at === 0 ? box : { text: text.slice(0, at - 1) + text.slice(at), at: at - 1 };
  if (key.leftArrow) return { text, at: Math.max(0, at - 1) };
  if (key.rightArrow) return { text, at: Math.min(text.length, at + 1) };
  if (key.ctrl || key.meta || key.tab || key.escape || key.return) return box;
  const insert = input.replace(/[\u0000-\u001f\u007f]/g, '');
  return { text: text.slice(0, at) + insert + text.slice(at), at: at + insert.length };
}

/** The box's text with the cursor (reverse video) while it has the keyboard, else a placeholder or the text. */
function QueryBox({ box, editing }: { box: QueryText; editing: boolean }) {
  const placeholder = "words of a rule's id, citation, name or summary";
  if (!editing) return <T tone="muted">{box.text || placeholder}</T>;
  return (
    <Text>
      {box.text.slice(0, box.at)}
      <Text inverse>{box.text[box.at] ?? ' '}</Text>
      {box.text.slice(box.at + 1)}
      {box.text ? null : <T tone="muted">{placeholder}</T>}
    </Text>
  );
}

export function SearchScreen() {
  const { source, push, rows, setTyping, memory } = useExplorer();
  const active = useActive();
  // the query survives opening a rule and coming back
  const [box, setBox] = useState<QueryText>(() => {
    const text = String(memory.get('search') ?? '');
    return { text, at: text.length };
  });
  const query = box.text;
  useEffect(() => void memory.set('search', query), [memory, query]);
  const [typing, setTypingHere] = useState(true);
  const [state, setState] = useState<{ results: RuleSummary[]; error?: string; for: string }>({ results: [], for: '' });
  const [cursor, setCursor] = useState(0);
  useEffect(() => {
    if (active) setTyping(typing ? 'query' : 'no');
  }, [typing, setTyping, active]);
  useEffect(() => {
    let live = true;
    source.search(query).then(
      (results) => live && (setState({ results, for: query }), setCursor(0)),
      (err: Error) => live && setState({ results: [], error: err.message, for: query }),
    );
    return () => {
      live = false;
    };
  }, [source, query]);
  useKeys(typing ? ['type to search', '↑↓ move', 'enter open', 'tab results'] : ['↑↓/jk move', 'enter open', 'tab search box']);
  const results = state.results;
  useKeyInput((input, key) => {
    if (key.tab) {
      // at once, so a key right after Tab is already a query letter or a command
      setTyping(typing ? 'no' : 'query');
      return setTypingHere(!typing);
    }
    // in the box, letters are the query: only ↑↓ and Enter reach the results
    if (typing && !key.upArrow && !key.downArrow && !key.pageUp && !key.pageDown && !key.return) return setBox((b) => typed(b, input, key));
    setCursor((c) => moved(c, results.length, typing ? '' : input, key));
    const rule = results[cursor];
    if (key.return && rule) push({ kind: 'rule', id: rule.id, label: rule.name });
  });
  const waiting = searchQuery(query) === undefined;
  // the name column as wide as the longest name shown, within reason
  const nameWidth = Math.min(46, Math.max(12, ...results.map((r) => r.name.length)));
  return (
    <Box flexDirection="column">
      <Box>
        <T tone="accent">Search: </T>
        <QueryBox box={box} editing={typing && active} />
      </Box>
      {state.error ? <T tone="bad">error: {state.error}</T> : null}
      {waiting ? (
        <T tone="muted">type at least 2 characters</T>
      ) : (
        <ListPane
          title={`Rules matching "${state.for.trim()}"`}
          items={results}
          cursor={cursor}
          height={Math.max(3, rows - 3)}
          focused
          empty="no rule matches every word"
          render={(r) => `${r.name.padEnd(nameWidth)}  ${r.status.padEnd(13)} ${r.jurisdiction}/${r.program_id}  ${r.citation_path}`}
        />
      )}
    </Box>
  );
}
