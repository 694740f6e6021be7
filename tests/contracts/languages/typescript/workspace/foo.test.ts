import { run } from './main';

test('run', () => { expect(run()).toBe(3); });
