import React from 'react';
import { App } from './App';

export class Old extends React.Component<{}> {
  render() { return <App />; }
}
