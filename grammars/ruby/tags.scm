; Ruby: definitions, calls, requires, inheritance and mixins, state mutations.
; Capture convention: grammars/README.md
; Methods are `function`s that become methods inside a class or module; `def self.x` is a
; method named `x` (the singleton prefix is not part of the qualified name).

; ---- definitions
(class name: (constant) @name) @definition.class
(class name: (scope_resolution name: (_) @name)) @definition.class
(module name: (constant) @name) @definition.module
(module name: (scope_resolution name: (_) @name)) @definition.module
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

; ---- calls (require/include and declaration keywords are not calls)
((call receiver: (_) @receiver method: [(identifier) (constant)] @name) @reference.call)
((call !receiver method: (identifier) @name) @reference.call
  (#not-match? @name "^(require|require_relative|load|include|extend|prepend|attr_reader|attr_writer|attr_accessor|private|public|protected|module_function|private_constant|raise)$"))
; a bare identifier used as a statement is a call without arguments (`helper`)
(body_statement (identifier) @name @reference.call)
; backticks and %x(...) run a shell: a call named "`" (or "%x(")
(subshell . "`" @name) @reference.call

; ---- requires: @import.name is the method used, "require_relative" or "require", so the
; resolver can tell a path relative to the file from a load-path name. The module keeps
; its quotes as written.
((call !receiver method: (identifier) @import.name arguments: (argument_list . [(string) (simple_symbol)] @import.module .)) @import
  (#any-of? @import.name "require" "require_relative"))

; ---- inheritance: class A < B, class A < Mod::B; mixins: include M / extend M / prepend M
(superclass (constant) @inherit.base)
(superclass (scope_resolution name: (constant) @inherit.base))
((call !receiver method: (identifier) @_mixin arguments: (argument_list (constant) @inherit.base))
  (#any-of? @_mixin "include" "extend" "prepend"))
((call !receiver method: (identifier) @_mixin arguments: (argument_list (scope_resolution name: (constant) @inherit.base)))
  (#any-of? @_mixin "include" "extend" "prepend"))

; ---- state mutations: @x = ..., @x ||= ..., @x += ..., self.x = ...
(assignment left: (instance_variable)) @mutation
(operator_assignment left: (instance_variable)) @mutation
(assignment left: (call receiver: (self))) @mutation
(operator_assignment left: (call receiver: (self))) @mutation
