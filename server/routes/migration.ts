import { runCalculation } from '../calculation.js';
import { ApiError } from '../errors.js';
import { runMigration, toMigrationError } from '../migration/run.js';
import { AUTH_ERRORS, defineRoutes } from './route.js';

// POST /v1/household/{country_id}/calculate: the migration-only endpoint (compat:external).
// Its answers, errors included, use the external engine's shape, not the envelope.

export const migrationRoutes = defineRoutes({
  method: 'POST',
  url: '/v1/household/:country_id/calculate',
  path: '/v1/household/{country_id}/calculate',
  scope: 'compat:external',
  tag: 'migration',
  summary: 'Migration only: calculate in an external household engine\'s wire format',
  description:
    "For migrating partners (scope `compat:external`; ordinary and trial keys get 403). `country_id` is `us`. The body is `{household}` with entity groups `people`, `tax_units`, `spm_units`, `families`, `households`, `marital_units`; each variable maps period keys to values and a null value asks for it to be computed. `axes` are rejected (400). The state comes from `households.*.state_code` or `state_name`, and its SNAP package is the served package `<state>-snap` of `us-<state>`: from the bundled encodings, or from a corpus served with `--root` (such as the public US RuleSpec corpus). Mapping tables say, by the package inputs' legal ids, which input each PolicyEngine-US variable feeds: one federal table for every state's package of a corpus, and a table per state adding only that state's own inputs; a state no table knows gets the federal table alone. Coverage: `spm_units.*.snap` and its intermediates (`snap_gross_income`, `snap_net_income`, `snap_utility_allowance`, `snap_unit_size`, `is_snap_eligible`, ...) wherever the state's package has a rule (or a fed input) for them; a bare-year key returns the monthly amount times 12, a `YYYY-MM` key the monthly value; yearly inputs are divided by 12. A person may also carry `snap_time_limit_exhausted` (true or false for a period), this service's own input for a member who has used up the SNAP time limit of 7 CFR 273.24(b) (PolicyEngine-US has no variable for it); each value read that way is listed in `sidecar.own_inputs` `{entity_group, entity_id, variable, input, note}`. Variables that cannot be computed keep null and are listed in `sidecar.unsupported` with a reason (no mapping, no state, no package for the state; `code: not_in_package` when the state's package has no rule for that variable, `package_error` with the failure when a rule of the package fails for this household, such as a division by zero at its inputs). `sidecar.computed` names the rule (legal id) or fed input behind each value; `sidecar.package` and `sidecar.runtime` the package and its runtime id; `sidecar.mapping` the tables used and the corpus version they were written against. Given values no table uses are in `sidecar.ignored_inputs` with the reason. Package inputs the answer read that nothing in the household fed (so their defaults were assumed) are in `sidecar.assumed_inputs` (`{spm_unit, period, input, legal_id, entity, entity_id, value, fed_by}`, `fed_by` naming the external variables that would have supplied each, empty for an input no table feeds); an input fed from PolicyEngine-US's own default for a variable the household does not give carries `engine_default`, one a table gives every household `presumed` with the reason. Answers `{status: \"ok\", message, result, sidecar}`; errors `{status: \"error\", message, result: null, sidecar?}` with 400 (invalid body, unsupported country, axes, invalid household), 422 (no executable package for the program) and 502 (the calculation ran out of time, or the engine failed). New integrations use /v1/calculate.",
  envelope: false,
  errorShape: 'migration',
  body: { $ref: 'MigrationRequest' },
  success: {
    status: 200,
    description: '`{status: "ok", message, result, sidecar}`',
    schema: { $ref: 'MigrationResponse' },
  },
  errors: ['invalid_request', 'payload_too_large', 'unsupported_program', 'runtime_error', ...AUTH_ERRORS],
  handler: async (ctx, request, reply) => {
    const { country_id } = request.params as { country_id: string };
    if (country_id !== 'us') throw new ApiError('invalid_request', `unsupported country \`${country_id}\` (only \`us\`)`);
    const catalog = ctx.catalog();
    try {
      const out = runMigration(request.body, catalog, { calculate: (r) => runCalculation(catalog, r, ctx.config.calculateTimeoutMs) });
      const first = out.packages[0];
      return {
        status: 'ok',
        message: out.unsupported.length ? `${out.unsupported.length} requested values could not be computed; see sidecar.unsupported` : null,
        result: out.result,
        sidecar: {
          request_id: String(request.id),
          engine: 'rules',
          runtime: { id: first?.runtime_id ?? null, mode: catalog.mode },
          jurisdiction: first?.jurisdiction ?? null,
          package: first ? { program_id: first.program_id, jurisdiction: first.jurisdiction } : null,
          mapping: first ? { tables: first.tables, corpus: first.corpus } : null,
          period: out.periods[0] ?? null,
          computed: out.computed,
          unsupported: out.unsupported,
          ignored_inputs: out.ignored_inputs,
          assumed_inputs: out.assumed_inputs,
          own_inputs: out.own_inputs,
          warnings: out.warnings,
        },
      };
    } catch (err) {
      const failure = toMigrationError(err);
      return reply.status(failure.status).send({ status: 'error', message: failure.message, result: null, sidecar: { request_id: String(request.id), ...failure.sidecar } });
    }
  },
});
