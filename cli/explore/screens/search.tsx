import { TextInput } from '@inkjs/ui';
import { Box } from 'ink';
import { useEffect, useState } from 'react';
import type { RuleSummary } from '../source.js';
import { searchQuery } from '../source.js';
import { ListPane, moved, T, useActive, useExplorer, useKeyInput, useKeys } from '../ui.js';

// Rule search with the API's semantics, results as you type; Enter opens the selected rule.

export function SearchScreen() {
  const { source, push, rows, setTyping, memory } = useExplorer();
  const active = useActive();
  // the query survives opening a rule and coming back
  const [query, setQuery] = useState(() => String(memory.get('search') ?? ''));
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
    // in the box, letters are the query: only arrows move
    if (typing && !key.upArrow && !key.downArrow && !key.pageUp && !key.pageDown && !key.return) return;
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
        <TextInput isDisabled={!typing || !active} defaultValue={query} placeholder="words of a rule's id, citation, name or summary" onChange={setQuery} />
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
