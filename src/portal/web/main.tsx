import { render } from 'preact';
import { App } from './app';
import './styles.css';

// The portal's home is the jobs list.
if (location.pathname === '/') history.replaceState(null, '', `/jobs${location.search}`);
render(<App />, document.getElementById('app')!);
