import sys

from memory_lsp.server.app import main

sys.exit(main())
