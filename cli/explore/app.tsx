import { Box, useApp } from 'ink';
import { useCallback, useMemo, useRef, useState } from 'react';
import { GraphScreen } from './screens/graph.js';
import { HouseholdScreen } from './screens/household.js';
import { PackageScreen } from './screens/package.js';
import { ProgramsScreen } from './screens/programs.js';
import { RuleScreen } from './screens/rule.js';
import { SearchScreen } from './screens/search.js';
import type { ExplorerSource } from './source.js';
import { ActiveContext, type Explorer, ExplorerContext, KeyBusProvider, type Screen, T, type Typing, useKeyboard, useTerminalSize } from './ui.js';

// The explorer: a stack of screens under a breadcrumb, a footer with the keys that work, and
// the keys every screen shares (/ search, ? help, Esc/Backspace back, q quit).

const GLOBAL_KEYS = ['/ search', '? help', 'esc back', 'q quit'];

const HELP = [
  ['Programs', 'the runtime packages; enter opens one, c its household, g its graph'],
  ['Package', 'outputs and inputs; tab switches, enter on an output opens its rule'],
  ['Search', '/ anywhere; type (2+ characters, every word must match), ↑↓ and enter open a rule, tab moves to the results'],
  ['Rule', 'citation, summary, formula, sources; tab between dependencies and dependents, enter follows one'],
  ['Household', 'c on a package; enter/space toggles booleans and cycles choices, enter edits numbers, +/- steps them, r resets; tab to the outputs, enter opens a trace, o opens its rule'],
  ['Graph', 'g on a package or rule; enter/→ opens a node, ← closes it or goes to its parent, o opens the rule'],
  ['Everywhere', '↑↓ or j/k move, esc or backspace goes back, ? closes this help, q quits'],
];

function label(screen: Screen): string {
  switch (screen.kind) {
    case 'programs':
      return 'Programs';
    case 'package':
      return `${screen.jurisdiction}/${screen.programId}`;
    case 'household':
      return `${screen.programId} household`;
    case 'search':
      return 'search';
    case 'rule':
    case 'graph':
      return screen.label;
  }
}

function ScreenView({ screen }: { screen: Screen }) {
  switch (screen.kind) {
    case 'programs':
      return <ProgramsScreen />;
    case 'package':
      return <PackageScreen jurisdiction={screen.jurisdiction} programId={screen.programId} />;
    case 'search':
      return <SearchScreen />;
    case 'rule':
      return <RuleScreen id={screen.id} />;
    case 'household':
      return <HouseholdScreen jurisdiction={screen.jurisdiction} programId={screen.programId} />;
    case 'graph':
      return <GraphScreen jurisdiction={screen.jurisdiction} programId={screen.programId} ruleId={screen.ruleId} />;
  }
}

export function App({ source, color }: { source: ExplorerSource; color: boolean }) {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [stack, setStack] = useState<Screen[]>([{ kind: 'programs' }]);
  const [keys, setKeys] = useState<string[]>([]);
  const [help, setHelp] = useState(false);
  const typing = useRef<Typing>('no');
  const memory = useMemo(() => new Map<string, unknown>(), []);
  // the screen that comes to the top says again whether it types; the search box types at once
  const push = useCallback((screen: Screen) => {
    typing.current = screen.kind === 'search' ? 'query' : 'no';
    setStack((s) => [...s, screen]);
  }, []);
  const setTyping = useCallback((t: Typing) => void (typing.current = t), []);
  const top = stack[stack.length - 1];

  const keyboard = useKeyboard((input, key) => {
    const back = (key.escape && typing.current !== 'field') || ((key.backspace || key.delete) && typing.current === 'no');
    if (help) {
      if (input === 'q') exit();
      else if (input === '?' || back) setHelp(false);
      return;
    }
    if (back) {
      if (stack.length > 1) {
        typing.current = 'no';
        setStack((s) => s.slice(0, -1));
      }
      return;
    }
    if (typing.current !== 'no') return;
    if (input === 'q') exit();
    else if (input === '?') setHelp(true);
    else if (input === '/' && top.kind !== 'search') push({ kind: 'search' });
  });

  // header (title, breadcrumb), footer: 3 rows; the rest is the screen's
  const explorer: Explorer = { source, color, push, setKeys, setTyping, memory, rows: Math.max(6, rows - 4), columns };
  return (
    <ExplorerContext.Provider value={explorer}>
      <KeyBusProvider value={keyboard}>
        <Box flexDirection="column" width={columns}>
          <T wrap="truncate-end">
            <T tone="accent" bold>
              rules explore
            </T>{' '}
            <T tone="muted">{source.origin}</T>
          </T>
          <T wrap="truncate-end" bold>
            {stack.map(label).join(' › ')}
          </T>
          {help ? (
            <Box flexDirection="column">
              <T tone="accent" bold>
                Keys
              </T>
              {HELP.map(([screen, text]) => (
                <T key={screen}>
                  {screen.padEnd(11)} {text}
                </T>
              ))}
            </Box>
          ) : null}
          {/* every screen of the path stays mounted; only the top one shows and hears keys */}
          {stack.map((screen, i) => {
            const shown = i === stack.length - 1 && !help;
            return (
              <Box key={i} display={shown ? 'flex' : 'none'} flexDirection="column">
                <ActiveContext.Provider value={shown}>
                  <ScreenView screen={screen} />
                </ActiveContext.Provider>
              </Box>
            );
          })}
          <T tone="muted" wrap="truncate-end">
            {(help ? ['? or esc close help', 'q quit'] : [...keys, ...GLOBAL_KEYS]).join(' · ')}
          </T>
        </Box>
      </KeyBusProvider>
    </ExplorerContext.Provider>
  );
}
