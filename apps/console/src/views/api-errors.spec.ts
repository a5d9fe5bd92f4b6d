import { findAll, textOf } from '../render/vnode.js';
import { apiErrorView } from './api-errors.js';

describe('API error view', () => {
  it("shows every message, each naming a field beside a link to that field's rule", () => {
    const view = apiErrorView('RepairReplication', ["{TablesToInclude}: table '[public].[a]' is Validated: only a Mismatched table is repaired", 'the service did not answer (Failed to fetch)']);
    expect(view.attrs['role']).toBe('alert');
    expect(findAll(view, (element) => element.tag === 'p').map(textOf)).toEqual([
      "{TablesToInclude}: table '[public].[a]' is Validated: only a Mismatched table is repaired rule",
      'the service did not answer (Failed to fetch)',
    ]);
    expect(findAll(view, (element) => element.tag === 'a').map((link) => link.attrs['href'])).toEqual(['./api-reference.html#repairreplication-tablestoinclude']);
  });
});
