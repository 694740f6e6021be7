; Java: definitions, calls, imports, inheritance, state mutations.
; Capture convention: grammars/README.md
; Records are captured as `class` (the README's kinds have no `record`); annotation types as
; `interface`. Constructors are methods named after their class (`Child.Child`).

; ---- definitions
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method

; ---- calls (receiver = the object/class before the dot; `new X()` counts as a call of X)
(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
(method_invocation !object name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(object_creation_expression type: (scoped_type_identifier (type_identifier) @name .)) @reference.call
(object_creation_expression type: (generic_type (scoped_type_identifier (type_identifier) @name .))) @reference.call

; ---- imports
; import a.b.C;            -> module "a.b.C"
((import_declaration (scoped_identifier) @import.module .) @import
  (#not-match? @import "^import\\s+static"))
((import_declaration (identifier) @import.module .) @import
  (#not-match? @import "^import\\s+static"))
; import a.b.*;            -> module "a.b", name "*"
; import static a.b.C.*;   -> module "a.b.C", name "*"
(import_declaration (scoped_identifier) @import.module (asterisk) @import.name) @import
; import static a.b.C.foo; -> module "a.b.C", name "foo"
(import_declaration "static" (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import

; ---- inheritance (the child is the enclosing class/interface declaration)
(superclass (type_identifier) @inherit.base)
(superclass (generic_type) @inherit.base)
(superclass (scoped_type_identifier) @inherit.base)
(super_interfaces (type_list (_) @inherit.base))
(extends_interfaces (type_list (_) @inherit.base))

; ---- what a name is bound to, for receiver types (index/receivers_java.py): the strongest binding wins
; (`var x = new Foo()` by its value: a declared type `var` names nothing)
((local_variable_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.name)) @bind
  (#not-eq? @bind.type "var"))
(local_variable_declaration declarator: (variable_declarator name: (identifier) @bind.name value: (object_creation_expression type: (_) @bind.call))) @bind
(formal_parameter type: (_) @bind.type name: (identifier) @bind.name) @bind
(catch_formal_parameter (catch_type) @bind.type name: (identifier) @bind.name) @bind
(resource type: (_) @bind.type name: (identifier) @bind.name) @bind
((enhanced_for_statement type: (_) @bind.type name: (identifier) @bind.name) @bind
  (#not-eq? @bind.type "var"))
(field_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.name)) @bind @bind.member
(assignment_expression left: (field_access object: (this) @bind.self field: (identifier) @bind.name) right: (object_creation_expression type: (_) @bind.call)) @bind

; what a method returns, as declared (index/receivers_java.py `returned_type`)
(method_declaration type: (_) @returns.type name: (identifier) @returns.name) @returns

; ---- state mutations: this.x = ..., this.x += ..., this.x++
(assignment_expression left: (field_access object: (this))) @mutation
(update_expression (field_access object: (this))) @mutation
