import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PROGRAM_ID_PATTERN } from '../compiler/4-package/program-id.js';
import { encodeParameter, PathArgumentError } from './api-path.js';

// Three prompts for common caseworker questions. They make no request themselves: each is a task
// for the agent, naming the tools that fetch the facts, so every claim can be traced to the API.

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


export function registerPrompts(server: McpServer): void {
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
      description: "Compare a household with a program package's input schema and list the inputs it lacks, i.e. those that would take package defaults (household optional: without one, list every input to ask about).",
      argsSchema: { program_id: programId, jurisdiction, household },
    },
    (args) =>
      asUserPrompt(
        `Find inputs missing from a household for ${args.jurisdiction}/${args.program_id}`,
        [
          ...(args.household
            ? [`Find which inputs this household is missing for ${args.program_id} in ${args.jurisdiction}:`, '', '```json', prettyJson(args.household), '```']
            : [`No household is given yet: find which inputs a household needs for ${args.program_id} in ${args.jurisdiction}, as questions to ask the client.`]),
          '',
          `1. Call get_runtime_package with jurisdiction "${args.jurisdiction}" and program_id "${args.program_id}". Its \`entities\` list every input (name, dtype, default) per entity with the ids to use; \`household_aliases\` map alternative input names to canonical ones.`,
          args.household
            ? '2. Match the household against them: `entities` holds inputs per entity and id, `facts` flat inputs of the main entity, `people` per-person inputs, `spm_units` unit inputs; an alias counts as its canonical input.'
            : '2. Every input is missing: the household would be the package\'s sample_request with its defaults.',
          '3. List every input not supplied, grouped by entity, with its dtype and the default it would take. Mark the ones most likely to change the result (income, expenses, household size, ages) as questions to ask the client.',
          ...(args.household ? ['4. Also list any household keys that match no input (likely typos): the API rejects an unknown input (400 invalid_household) and warns about an unknown top-level key.'] : []),
        ].join('\n'),
      ),
  );
}
