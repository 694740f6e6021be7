const util = require('./util');

export const g = () => util.f();
