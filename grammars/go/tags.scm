; Go: definitions, calls, imports, embedding, receiver-field writes.
; Capture convention: grammars/README.md
;
; Methods are declared outside their type, so the receiver's type is captured as @owner:
; `func (s *Server) Handle()` becomes `Server.Handle` (kind method, parent Server).

(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @owner))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name
  type: [(type_identifier) (qualified_type) (generic_type) (pointer_type) (slice_type) (array_type)
         (map_type) (channel_type) (function_type) (parenthesized_type) (negated_type)]) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
; interface methods nest into their interface: I.Method
(method_elem name: (field_identifier) @name) @definition.method

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call

; import "fmt" / import u "example.com/m/util" (also `_` and `.`); the path keeps its quotes
(import_spec !name path: (_) @import.module) @import
(import_spec name: (_) @import.alias path: (_) @import.module) @import

; embedded struct fields (`Base`, `*Base`, `pkg.Base`) and embedded interfaces; the child is
; the enclosing type
(field_declaration !name type: [(type_identifier) (qualified_type) (generic_type)] @inherit.base)
(interface_type (type_elem . [(type_identifier) (qualified_type) (generic_type)] @inherit.base .))

; writes to the receiver's fields in a method body (top-level statements of the body only:
; a query cannot follow the receiver name into nested blocks)
(method_declaration
  receiver: (parameter_list (parameter_declaration name: (identifier) @_recv))
  body: (block (statement_list
    [(assignment_statement left: (expression_list (selector_expression operand: (identifier) @_obj)))
     (inc_statement (selector_expression operand: (identifier) @_obj))
     (dec_statement (selector_expression operand: (identifier) @_obj))] @mutation))
  (#eq? @_recv @_obj))
