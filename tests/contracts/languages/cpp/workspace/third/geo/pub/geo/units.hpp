#pragma once
namespace geo { inline double scale() { return 2.0; } }
