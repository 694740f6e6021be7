from memory_lsp.cli.main import main

if __name__ == "__main__":  # a spawned or fork-server worker imports this module as __mp_main__
    raise SystemExit(main())
