from memory_lsp.cli import main

raise SystemExit(main())
