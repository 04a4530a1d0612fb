import { describe, expect, it } from 'vitest';
import { fieldKind, formRequest, nextValue, parseTyped, sampleForm, stepOf, withValue } from '../../../cli/explore/household-form.js';
import { localSource } from '../../../cli/explore/local-source.js';
import { bundledForTests } from './helpers.js';

const compiled = bundledForTests();
const detail = (jurisdiction: string, programId: string) => localSource(compiled.catalog, 'compiled').packageDetail(jurisdiction, programId);

describe('household form', () => {
  it('holds every input of every entity instance of the sample, and gives back the sample request', async () => {
    const d = await detail('us-co', 'co-snap');
    const form = sampleForm(d);
    expect(form.fields).toHaveLength(13 + 3 * 6);
    expect(formRequest(form)).toEqual({ program_id: 'co-snap', jurisdiction: 'us-co', household: d.sample_request.household, explain: true });
  });

  it('leaves a cleared field out of the request, keeping its entity instance', async () => {
    const d = await detail('us-co', 'co-snap');
    const form = sampleForm(d);
    const shelter = form.fields.findIndex((f) => f.input.name === 'snap_shelter_costs');
    const age = form.fields.findIndex((f) => f.id === 'person-1' && f.input.name === 'age');
    let cleared = withValue(withValue(form, shelter, undefined), age, undefined);
    for (const f of cleared.fields) if (f.id === 'person-1') cleared = withValue(cleared, cleared.fields.indexOf(f), undefined);
    const household = formRequest(cleared).household as { entities: { Household: { household: Record<string, unknown> }; Person: Record<string, Record<string, unknown>> } };
    expect(household.entities.Household.household).not.toHaveProperty('snap_shelter_costs');
    expect(household.entities.Person['person-1']).toEqual({});
  });

  it('edits by dtype: booleans toggle, enums cycle through their values, numbers are typed and stepped', async () => {
    const form = sampleForm(await detail('us-ny', 'ny-snap'));
    const at = (name: string) => form.fields.findIndex((f) => f.input.name === name);
    const region = form.fields[at('ny_snap_utility_region')];
    expect(fieldKind(region.input)).toBe('choice');
    expect([nextValue(region), nextValue({ ...region, value: 'rest_of_state' })]).toEqual(['new_york_city', 'nassau_suffolk']);
    const telephone = form.fields[at('snap_pays_telephone')];
    expect([telephone.kind, nextValue(telephone)]).toEqual(['boolean', true]);
    const income = form.fields[at('snap_earned_income')];
    expect([income.kind, stepOf(income), nextValue(income)]).toEqual(['number', 100, undefined]);
    expect(stepOf(form.fields[at('household_size')])).toBe(1);
    expect(parseTyped(income, ' 2400.5 ')).toEqual({ value: 2400.5 });
    expect(parseTyped(income, '12abc')).toEqual({ error: 'snap_earned_income is Money: "12abc" is not a number' });
    const changed = formRequest(withValue(form, at('snap_earned_income'), 2400));
    expect((changed.household as { entities: { Household: { household: Record<string, unknown> } } }).entities.Household.household.snap_earned_income).toBe(2400);
  });
});
