; TSX (TypeScript with JSX): definitions, calls, imports, inheritance, state mutations.
; Capture convention: grammars/README.md

; ---- definitions
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias_declaration name: (type_identifier) @name) @definition.type
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
; declare function f(): T (ambient declarations, .d.ts files, overloads)
(function_signature name: (identifier) @name) @definition.function
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
(class_body (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
(interface_body (method_signature name: (property_identifier) @name) @definition.function)
; class fields holding a function: handle = () => {...}
(class_body (public_field_definition name: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)
; const f = () => {...} / let f = function () {...} / var C = class {...}
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class

; ---- calls (new X() counts as a call of X)
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
; JSX components (capitalised tags) are uses of the component function
(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_opening_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(jsx_self_closing_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call

; ---- what a function or method returns, as annotated (index/receivers_ts.py `returned_type`)
(function_declaration name: (identifier) @returns.name return_type: (type_annotation (_) @returns.type)) @returns
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @returns.name return_type: (type_annotation (_) @returns.type)) @returns)
(class_body (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @returns.name return_type: (type_annotation (_) @returns.type)) @returns)
(interface_body (method_signature name: (property_identifier) @returns.name return_type: (type_annotation (_) @returns.type)) @returns)

; ---- what a name is bound to, for receiver types (index/receivers_ts.py): the strongest binding wins
; (an object literal is no builtin: it often holds the workspace's functions, `const z = {...schemas}`)
(variable_declarator name: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(variable_declarator name: (identifier) @bind.name value: (new_expression constructor: [(identifier) (member_expression)] @bind.call)) @bind
(variable_declarator name: (identifier) @bind.name value: [(string) (template_string) (array) (number)] @bind.literal) @bind
(variable_declarator name: (identifier) @bind.name) @bind
(required_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(required_parameter pattern: (identifier) @bind.name) @bind
(optional_parameter pattern: (identifier) @bind.name) @bind
; a callback's parameter: what the function it is passed to declares (index/receivers_ts.py callback_slot)
(call_expression function: (identifier) @bind.callee arguments: (arguments [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @bind.name))) (arrow_function parameter: (identifier) @bind.name) (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @bind.name)))])) @bind
(new_expression constructor: (identifier) @bind.callee arguments: (arguments [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @bind.name))) (arrow_function parameter: (identifier) @bind.name) (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @bind.name)))])) @bind
; constructor(private x: Foo): a field of the instance
(required_parameter (accessibility_modifier) pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind @bind.member
(public_field_definition name: (property_identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind @bind.member
(public_field_definition name: (property_identifier) @bind.name value: (new_expression constructor: [(identifier) (member_expression)] @bind.call)) @bind @bind.member
(assignment_expression left: (member_expression object: (this) @bind.self property: (property_identifier) @bind.name) right: (new_expression constructor: [(identifier) (member_expression)] @bind.call)) @bind
; ---- ES imports
; import x from './a'   (default: no name, alias = local binding)
(import_statement (import_clause (identifier) @import.alias) source: (string) @import.module) @import
; import * as ns from './a'   (name "*": the module whole, bound to ns)
(import_statement (import_clause (namespace_import "*" @import.name (identifier) @import.alias)) source: (string) @import.module) @import
; import { a } from './a' / import { a as b } from './a'
(import_statement (import_clause (named_imports (import_specifier name: (_) @import.name alias: (identifier)? @import.alias))) source: (string) @import.module) @import
; import './a'   (side effect only: the source is the first named child)
(import_statement . source: (string) @import.module) @import
; export { a, b as c } from './a' / export * from './a' / export * as ns from './a'
(export_statement (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias)) source: (string) @import.module) @import
; export { a as b }   (a name of the file's own, offered as b: a row into the file itself)
(export_statement (export_clause (export_specifier name: (_) @import.name alias: (_) @import.alias)) !source) @import @import.own
(export_statement "*" @import.name source: (string) @import.module) @import
(export_statement (namespace_export "*" @import.name (_) @import.alias) source: (string) @import.module) @import
; import x = require('./a')
(import_statement (import_require_clause (identifier) @import.alias source: (string) @import.module)) @import
; import('./a')
(call_expression function: (import) arguments: (arguments . (string) @import.module)) @import

; ---- CommonJS require('./a')
; const m = require('./m')
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .))
  (#eq? @_req "require")) @import
; const { a, b: c } = require('./m')
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .))
  (#eq? @_req "require")) @import
(variable_declarator
  name: (object_pattern (pair_pattern key: (_) @import.name value: (identifier) @import.alias))
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .))
  (#eq? @_req "require")) @import
; require('./m') anywhere else: a statement, x = require(), { k: require() }, require().x, f(require())
(expression_statement (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(assignment_expression left: (identifier) @import.alias right: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(assignment_expression left: (member_expression) right: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(pair value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(member_expression object: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(arguments (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(return_statement (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(array (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(ternary_expression (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(binary_expression (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(parenthesized_expression (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))
(spread_element (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module .)) @import (#eq? @_req "require"))

; ---- inheritance
(class_declaration name: (type_identifier) @inherit.child (class_heritage (extends_clause value: [(identifier) (member_expression)] @inherit.base)))
(abstract_class_declaration name: (type_identifier) @inherit.child (class_heritage (extends_clause value: [(identifier) (member_expression)] @inherit.base)))
(class (class_heritage (extends_clause value: [(identifier) (member_expression)] @inherit.base)))
(class_declaration name: (type_identifier) @inherit.child (class_heritage (implements_clause [(type_identifier) (nested_type_identifier) (generic_type)] @inherit.base)))
(abstract_class_declaration name: (type_identifier) @inherit.child (class_heritage (implements_clause [(type_identifier) (nested_type_identifier) (generic_type)] @inherit.base)))
(interface_declaration name: (type_identifier) @inherit.child (extends_type_clause type: [(type_identifier) (nested_type_identifier) (generic_type)] @inherit.base))

; ---- writes to object state
(assignment_expression left: (member_expression object: (this))) @mutation
(augmented_assignment_expression left: (member_expression object: (this))) @mutation
(update_expression argument: (member_expression object: (this))) @mutation
