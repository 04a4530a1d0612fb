import type { RuleDetail, RuleSummary } from '../../compiler/4-package/rule-index.js';
import { searchText } from '../../compiler/4-package/rule-index.js';

// Rule search: every whitespace-separated token of 2+ characters must occur (case-insensitive,
// anywhere) in a rule's id, citation path, name, summary or symbols. A trigram index narrows the
// candidates; each candidate is then checked against its text. Results rank name matches
// first, then id and citation-path matches, then the rest, stable by id.

export interface SearchFilters {
  jurisdiction?: string;
  program_id?: string;
}

const trigrams = (s: string): string[] => {
  const out = new Set<string>();
  for (let i = 0; i + 3 <= s.length; i++) out.add(s.slice(i, i + 3));
  return [...out];
};

export function queryTokens(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/\s+/).filter((t) => t.length >= 2))];
}

export function toSummary(r: RuleDetail): RuleSummary {
  return {
    id: r.id,
    citation_path: r.citation_path,
    name: r.name,
    jurisdiction: r.jurisdiction,
    program_id: r.program_id,
    document_class: r.document_class,
    status: r.status,
    source_count: r.source_count,
  };
}

export class SearchIndex {
  private readonly texts: string[];
  private readonly postings = new Map<string, number[]>();

  constructor(private readonly rules: RuleDetail[]) {
    this.texts = rules.map(searchText);
    this.texts.forEach((text, i) => {
      for (const g of trigrams(text)) {
        const list = this.postings.get(g);
        if (list) list.push(i);
        else this.postings.set(g, [i]);
      }
    });
  }

  private candidates(token: string): number[] | undefined {
    if (token.length < 3) return undefined; // two-character tokens are checked by scanning
    let best: number[] | undefined;
    for (const g of trigrams(token)) {
      const list = this.postings.get(g) ?? [];
      if (!best || list.length < best.length) best = list;
      if (best.length === 0) break;
    }
    return best;
  }

  search(query: string, filters: SearchFilters, limit: number): RuleSummary[] {
    // without a token of 2+ characters nothing constrains the match: every rule qualifies
    const tokens = queryTokens(query);
    let pool: number[] | undefined;
    for (const t of tokens) {
      const c = this.candidates(t);
      if (c && (!pool || c.length < pool.length)) pool = c;
    }
    const ids = pool ?? this.rules.map((_, i) => i);
    const scored: { i: number; score: number }[] = [];
    for (const i of ids) {
      const rule = this.rules[i];
      if (filters.jurisdiction !== undefined && rule.jurisdiction !== filters.jurisdiction) continue;
      if (filters.program_id !== undefined && rule.program_id !== filters.program_id) continue;
      const text = this.texts[i];
      if (!tokens.every((t) => text.includes(t))) continue;
      const name = rule.name.toLowerCase();
      const id = rule.id.toLowerCase();
      const score = tokens.reduce((s, t) => s + (name === t ? 8 : name.includes(t) ? 4 : id.includes(t) ? 2 : 1), 0);
      scored.push({ i, score });
    }
    scored.sort((a, b) => b.score - a.score || (this.rules[a.i].id < this.rules[b.i].id ? -1 : 1));
    return scored.slice(0, limit).map(({ i }) => toSummary(this.rules[i]));
  }
}
