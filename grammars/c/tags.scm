; C: definitions, calls, includes. (No classes, so no inheritance or state mutations.)
; Capture convention: grammars/README.md
; Only function *definitions* are symbols (prototypes in headers are not), so calls resolve
; to the body. A typedef of a named struct/union/enum with a body is a `type` symbol spanning
; only its name (the struct is its own symbol, and must not nest inside the typedef).

; ---- functions: int f(...) {...}, int *f(...), int **f(...)
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (_ (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (_ (_ (function_declarator declarator: (identifier) @name)))) @definition.function

; ---- structs, unions, enums (with a body)
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

; ---- typedefs
; typedef struct { ... } name;   (anonymous: the typedef is the struct)
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.enum
; typedef struct node { ... } node_t;   (node_t spans its name only)
(type_definition type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]
  declarator: (type_identifier) @name @definition.type)
; typedef int myint; typedef struct node node_t; typedef int (*cb)(int); typedef char *str;
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

; ---- calls (receiver = the struct expression before . or ->)
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call

; ---- includes: the module keeps its delimiters ("x.h" or <x.h>); the resolver tells them apart
(preproc_include path: (string_literal) @import.module) @import
(preproc_include path: (system_lib_string) @import.module) @import
