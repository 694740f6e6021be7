const util = require('./util');
import { g } from './lib/g.mjs';

function run() { return util.f() + g(); }
