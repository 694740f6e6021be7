; C++: definitions, calls, includes, inheritance, state mutations.
; Capture convention: grammars/README.md
; Namespaces are `module`s. Functions defined in a class body become methods by nesting.
; An out-of-class definition `void Foo::bar() {}` is a `method` named `bar` whose qualified
; name is just `bar`: the extractor nests by byte ranges only, and the class body is elsewhere.
; Only definitions are symbols (declarations and prototypes are not).

; ---- namespaces, classes, structs, unions, enums
(namespace_definition name: (_) @name) @definition.module
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

; ---- typedefs and aliases (see grammars/c/tags.scm for the struct-typedef split)
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.enum
(type_definition type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))]
  declarator: (type_identifier) @name @definition.type)
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type) (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

; ---- functions and in-class methods (a function nested in a class/struct becomes a method);
; plain, pointer/reference-returning, constructors, destructors, operators
(function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition declarator: (_ (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))) @definition.function
(function_definition declarator: (_ (_ (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))) @definition.function

; ---- out-of-class definitions: Foo::bar, ns::Foo::bar, a::b::Foo::bar (also behind * and &)
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name)))) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  name: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name))))) @definition.method
(function_definition declarator: (_ (function_declarator declarator: (qualified_identifier
  name: [(identifier) (destructor_name) (operator_name)] @name)))) @definition.method
(function_definition declarator: (_ (function_declarator declarator: (qualified_identifier
  name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name))))) @definition.method

; ---- calls: f(), obj.f(), ptr->f(), this->f(), ns::f(), Foo::f(), f<T>(), new Foo()
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression function: (qualified_identifier scope: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression function: (qualified_identifier scope: (_) @receiver name: (template_function name: (identifier) @name))) @reference.call
(call_expression function: (qualified_identifier name: (qualified_identifier scope: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression function: (qualified_identifier name: (qualified_identifier scope: (_) @receiver name: (template_function name: (identifier) @name)))) @reference.call
(new_expression type: (type_identifier) @name) @reference.call
(new_expression type: (template_type name: (type_identifier) @name)) @reference.call
(new_expression type: (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)) @reference.call

; ---- includes: the module keeps its delimiters ("x.h" or <x.h>); the resolver tells them apart
(preproc_include path: (string_literal) @import.module) @import
(preproc_include path: (system_lib_string) @import.module) @import

; ---- inheritance: class D : public B, private ns::M<int> (the child is the enclosing class)
(base_class_clause (type_identifier) @inherit.base)
(base_class_clause (template_type name: (type_identifier) @inherit.base))
(base_class_clause (qualified_identifier name: (type_identifier) @inherit.base))
(base_class_clause (qualified_identifier name: (template_type name: (type_identifier) @inherit.base)))
(base_class_clause (qualified_identifier name: (qualified_identifier name: (type_identifier) @inherit.base)))
(base_class_clause (qualified_identifier name: (qualified_identifier name: (template_type name: (type_identifier) @inherit.base))))

; ---- state mutations: this->x = ..., this->x += ..., ++this->x
(assignment_expression left: (field_expression argument: (this))) @mutation
(update_expression argument: (field_expression argument: (this))) @mutation
