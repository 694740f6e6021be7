import { App } from './App';

test('renders', () => { expect(<App />).toBeTruthy(); });
