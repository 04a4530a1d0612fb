import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PROGRAM_ID_PATTERN } from '../compiler/4-package/program-id.js';
import { encodeParameter, PathArgumentError } from './api-path.js';
import type { ApiClient, ApiFailure } from './http.js';

// Three prompts for common caseworker questions. Each is a task for the agent, naming the tools
// that fetch the facts, so every claim can be traced to the API; find_missing_household_inputs
// also asks the API itself which facts a given household's answer depends on.

// Arguments that name what the prompt's tool calls address are held to the tools' rules (the
// path checks of api-path.ts, the program id slug), so a prompt never carries `../admin` into the
// calls it asks for: a bad one is refused as invalid params.
const pathSafe =
  (argument: string, options: { slashes?: boolean } = {}) =>
  (value: string, ctx: z.RefinementCtx) => {
    try {
      encodeParameter(argument, value, options);
    } catch (err) {
      if (!(err instanceof PathArgumentError)) throw err;
      ctx.addIssue({ code: 'custom', message: `${argument}: ${err.reason}` });
    }
  };
const ruleId = z.string().min(1).max(500).superRefine(pathSafe('rule_id', { slashes: true })).describe('Rule id (e.g. `us:statutes/7/2017/a#snap_allotment`) or citation path');
const programId = z.string().regex(PROGRAM_ID_PATTERN, 'program_id must be a program id slug such as `snap` or `co-snap`').describe('Program id from list_runtime_packages, e.g. `snap` or `co-snap`');
const jurisdiction = z.string().min(1).max(120).superRefine(pathSafe('jurisdiction')).describe('Jurisdiction from list_runtime_packages, e.g. `us-co`');
// Prompt arguments are strings on the wire, so the household comes as JSON text; without one the
// agent starts from the package's sample_request and asks for the facts it lacks.
const household = z
  .string()
  .refine(isJsonObject, 'household must be JSON text of an object, e.g. {"facts": {"household_size": 3}}')
  .optional()
  .describe('Optional: the household as JSON text, e.g. {"facts": {"household_size": 3, "snap_earned_income": 1500}}; without it, the package\'s sample_request is the starting point');

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

const asUserPrompt = (description: string, text: string): GetPromptResult => ({
  description,
  messages: [{ role: 'user', content: { type: 'text', text } }],
});

const prettyJson = (text: string) => JSON.stringify(JSON.parse(text), null, 2);

/** The household block of a prompt: the one given, or where to get one. */
const householdBlock = (args: { program_id: string; jurisdiction: string; household?: string }, given: string, missing: string): string[] =>
  args.household
    ? [given, '', '```json', prettyJson(args.household), '```']
    : [missing, '', `Call get_runtime_package with jurisdiction "${args.jurisdiction}" and program_id "${args.program_id}": its \`sample_request\` holds every entity and every input with its default (\`household.entities\`). Ask the user for the facts that matter (income, expenses, household members and their ages) and write them into it; do not invent values.`];


export function registerPrompts(server: McpServer, api: ApiClient): void {
  server.registerPrompt(
    'explain_rule_for_caseworker',
    {
      title: 'Explain a rule for a caseworker',
      description: 'Explain one rule in plain language for a caseworker, citing its legal sources.',
      argsSchema: { rule_id: ruleId },
    },
    ({ rule_id }) =>
      asUserPrompt(
        `Explain rule ${rule_id} for a caseworker`,
        [
          `Explain the rule \`${rule_id}\` to a benefits caseworker.`,
          '',
          `1. Call get_rule with rule_id "${rule_id}" for its summary, symbols, dependencies and provenance.`,
          `2. Call get_rule_sources with the same rule_id for its legal sources.`,
          '3. Write: what the rule decides, in plain language; which inputs it uses (from symbols and dependencies); how it affects a household, with a short worked example if it computes an amount; and the legal citations (label and URL of each source, quoting where a quote is given).',
          '',
          'Use only what the tools return. If a call fails, report the error message instead of guessing.',
        ].join('\n'),
      ),
  );

  server.registerPrompt(
    'trace_household_result',
    {
      title: "Calculate and trace a household's result",
      description: "Calculate a household's outputs for a program and explain each one from the calculation trace and its legal sources (household optional: without one, start from the package's sample request).",
      argsSchema: { program_id: programId, jurisdiction, household },
    },
    (args) =>
      asUserPrompt(
        `Calculate and trace ${args.jurisdiction}/${args.program_id} for a household`,
        [
          ...householdBlock(args, `Calculate ${args.program_id} in ${args.jurisdiction} for this household and explain the result to a caseworker:`, `Calculate ${args.program_id} in ${args.jurisdiction} for a household and explain the result to a caseworker.`),
          '',
          `1. Call calculate_household with program_id "${args.program_id}", jurisdiction "${args.jurisdiction}" and the household.`,
          '2. State each output and its value first.',
          '3. Explain how each output was reached by walking `data.trace` from inputs to the final values: each step names its variable, value and rule_id; cite the step\'s sources. Call get_rule_sources for a rule when fuller citations help.',
          '4. If `data.warnings` is non-empty, say clearly that the result is not an authoritative eligibility determination and quote the warnings.',
          '',
          'If the calculation is rejected (for example invalid_household or unsupported_program), explain the error message and what to change.',
        ].join('\n'),
      ),
  );

  server.registerPrompt(
    'find_missing_household_inputs',
    {
      title: 'Find missing household inputs',
      description:
        "List exactly the inputs a household's answer depends on but does not give, as the API finds them (calculate_household with assumptions: \"refuse\"), one round of questions at a time (household optional: without one, start from the facts the user has).",
      argsSchema: { program_id: programId, jurisdiction, household },
    },
    async (args) => asUserPrompt(`Find inputs missing from a household for ${args.jurisdiction}/${args.program_id}`, (await missingInputsTask(api, args)).join('\n')),
  );
}

/** The round of questions the API asks for this household now, or how to get them. */
async function missingInputsTask(api: ApiClient, args: { program_id: string; jurisdiction: string; household?: string }): Promise<string[]> {
  const loop = [
    `Call calculate_household with program_id "${args.program_id}", jurisdiction "${args.jurisdiction}", the household and \`assumptions: "refuse"\`. While it is refused with invalid_household, \`structuredContent.error.api_response.error.assumptions\` lists exactly the facts the answer still depends on (each with its \`field\`, the place in the household to give it, and the package default it would otherwise take): ask the user for those, write each answer at its field (\`household.entities.<entity>.<entity_id>.<input>\`, or \`household.period\`), and call again. Stop when it answers: nothing is left to ask. Do not guess or invent values; a fact the user does not know stays out, and saying so is the answer.`,
  ];
  if (!args.household) {
    return [
      `No household is given yet for ${args.program_id} in ${args.jurisdiction}. Ask the user for the facts they have (the month, income, the people in the household and their ages), write them as a household (\`facts\`, \`people\`, \`period\`: see get_runtime_package for the input names), then:`,
      '',
      ...loop,
    ];
  }
  const household = JSON.parse(args.household) as Record<string, unknown>;
  const outcome = await api.call({ method: 'POST', path: '/v1/calculate', body: { program_id: args.program_id, jurisdiction: args.jurisdiction, household, assumptions: 'refuse' } });
  const shown = ['```json', JSON.stringify(household, null, 2), '```'];
  if (outcome.ok) return [`The API needs nothing more for ${args.program_id} in ${args.jurisdiction}: this household gives every input its answer reads.`, '', ...shown, '', 'Call calculate_household with it to give the user the answer and its warnings.'];
  const assumptions = refusedAssumptions(outcome.error);
  if (!assumptions) {
    return [`The API could not be asked which inputs are missing (${outcome.error.message}). Report that to the user; do not guess the inputs. The household:`, '', ...shown, '', ...loop];
  }
  return [
    `For ${args.program_id} in ${args.jurisdiction}, the answer for this household depends on ${assumptions.length} ${assumptions.length === 1 ? 'fact' : 'facts'} it does not give (the API's list, from calculate_household with assumptions: "refuse"):`,
    '',
    ...shown,
    '',
    ...assumptions.map((a) => `- ${a.input}${a.entity_id ? ` (${a.entity} ${a.entity_id})` : ''}: give it at \`${a.field}\` (otherwise ${JSON.stringify(a.value)} would be assumed)`),
    '',
    'Ask the user for these, in plain words. Then:',
    ...loop,
  ];
}

interface RefusedAssumption {
  input: string;
  entity: string | null;
  entity_id: string | null;
  value: unknown;
  field: string;
}

/** The list a refused calculation carries (400 invalid_household, `error.assumptions`); none for any other failure. */
function refusedAssumptions(error: ApiFailure): RefusedAssumption[] | undefined {
  if (!('api_response' in error)) return undefined;
  const body = error.api_response as { error?: { code?: string; assumptions?: RefusedAssumption[] } } | null;
  return body?.error?.code === 'invalid_household' && Array.isArray(body.error.assumptions) ? body.error.assumptions : undefined;
}
