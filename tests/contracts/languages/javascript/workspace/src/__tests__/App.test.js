import { App } from '../App';

test('renders', () => { App(); });
