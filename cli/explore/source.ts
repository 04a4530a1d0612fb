import type { CalculateRequest, ProgramGraph } from '../../compiler/4-package/package-types.js';
import type { ProgramSummary, RuleDetail, RuleSummary, SourceReference } from '../../compiler/4-package/rule-index.js';
import type { CalculateResponse } from '../../server/calculation.js';
import type { packageDetail, packageSummary } from '../../server/catalog/views.js';

// What the explorer reads, in the shapes the /v1 API answers with, whether it comes from a
// compiled output in this process or from a running daemon.

export type PackageSummary = ReturnType<typeof packageSummary>;
export type PackageDetail = ReturnType<typeof packageDetail>;
export type { CalculateRequest, CalculateResponse, ProgramGraph, ProgramSummary, RuleDetail, RuleSummary, SourceReference };

/** The most search results a screen asks for (the API's cap). */
export const SEARCH_LIMIT = 50;

export interface RuleView {
  rule: RuleDetail;
  sources: SourceReference[];
}

export interface ExplorerSource {
  /** Where the data comes from, for the header (`compiled /path`, `http://host:port`). */
  readonly origin: string;
  packages(): Promise<PackageSummary[]>;
  programs(): Promise<ProgramSummary[]>;
  packageDetail(jurisdiction: string, programId: string): Promise<PackageDetail>;
  /** `POST /v1/search` semantics; a query under 2 characters after trimming finds nothing. */
  search(query: string): Promise<RuleSummary[]>;
  rule(idOrPath: string): Promise<RuleView>;
  graph(jurisdiction: string, programId: string): Promise<ProgramGraph>;
  /** `POST /v1/calculate`: outputs with their trace. */
  calculate(request: CalculateRequest): Promise<CalculateResponse>;
}

/** Anything the source could not answer (unknown rule, refused household, daemon unreachable). */
export class SourceError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

/** The query `POST /v1/search` would run, or undefined when it would refuse it as too short. */
export function searchQuery(query: string): string | undefined {
  const trimmed = query.trim();
  return trimmed.length >= 2 ? trimmed : undefined;
}
