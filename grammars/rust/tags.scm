; Rust: definitions, calls, imports, trait impls and bounds, `self.field` writes.
; Capture convention: grammars/README.md
;
; Functions in an `impl` block carry the implemented type as @owner, so `impl Foo { fn bar() }`
; and `impl Trait for Foo { fn bar() }` both give `Foo.bar` (kind method, parent Foo). The impl
; block itself is not a symbol (it would repeat the type's name). Free functions are matched
; only where they can stand outside an impl, so no function is captured twice.

(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module

(source_file (function_item name: (identifier) @name) @definition.function)
(block (function_item name: (identifier) @name) @definition.function)
(mod_item body: (declaration_list (function_item name: (identifier) @name) @definition.function))
; trait methods (with or without a default body) nest into the trait: Trait.method
(trait_item body: (declaration_list [(function_item name: (identifier) @name)
                                     (function_signature_item name: (identifier) @name)] @definition.function))
(impl_item type: (_) @owner
  body: (declaration_list (function_item name: (identifier) @name) @definition.method))

; f(), x.f(), Foo::f(), a::b::f(), and the turbofish forms f::<T>(), Foo::f::<T>(), x.f::<T>()
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier path: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression function: (generic_function function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call

; Imports. A `use` tree is split like Python's `from m import n`: @import.module is the path up
; to the last segment, @import.name the last segment (`self` for the module itself, `*` for a
; glob), so the full path is always `module::name`:
;   use crate::a::b::C;      module "crate::a::b"  name "C"
;   use std::fs;             module "std"          name "fs"
;   use serde;               module "serde"        (no name)
;   use a::{b, c::D as E};   module "a", name "b"; module "a", name "c::D", alias "E"
;   use a::b::*;             module "a::b"         name "*"
; @import.alias is the local name the import binds wherever that is not the last segment of the
; full path as written: `use a::{c::D}` binds "D" (alias "D"), `use x::y::{self}` binds "y".
; A group nested inside a group (`use a::{b::{c, d}}`) is recorded as its path (`b`) only.
; `mod foo;` (a module declared in another file) is an import whose @import.module is the whole
; item, text "mod foo;" (or "pub mod foo;"), and whose @import.alias is the bound name "foo": the
; resolver recognises the `mod` item by that text.
(use_declaration argument: (identifier) @import.module) @import
(use_declaration argument: (scoped_identifier path: (_) @import.module name: (_) @import.name)) @import
(use_declaration argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias)) @import
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @import.module name: (_) @import.name)
                                          alias: (identifier) @import.alias)) @import
(use_declaration argument: (use_wildcard (_) @import.module "*" @import.name)) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module
  list: (use_list (identifier) @import.name))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module
  list: (use_list (scoped_identifier name: (identifier) @import.alias) @import.name))) @import
(use_declaration argument: (scoped_use_list path: (identifier) @import.module @import.alias
  list: (use_list (self) @import.name))) @import
(use_declaration argument: (scoped_use_list path: (scoped_identifier name: (identifier) @import.alias) @import.module
  list: (use_list (self) @import.name))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module
  list: (use_list (use_as_clause path: (_) @import.name alias: (identifier) @import.alias)))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module
  list: (use_list (scoped_use_list path: (_) @import.name)))) @import
(mod_item name: (identifier) @import.alias !body) @import @import.module
; `mod foo;` in a branch of `cfg_if! { if #[cfg(..)] { mod foo; } else { .. } }`: the macro's body
; is tokens, not items, so @import.module is the bare `mod` token and the resolver takes the name
; from @import.alias (the edge is marked rust_cfg: see resolvers/rust.py)
(macro_invocation
  macro: [(identifier) @_macro (scoped_identifier name: (identifier) @_macro)]
  (token_tree (token_tree "mod" @import @import.module . (identifier) @import.alias . ";"))
  (#eq? @_macro "cfg_if"))

; impl Trait for Type: Type inherits Trait; trait A: B + C: A inherits B and C
(impl_item trait: (_) @inherit.base
  type: [(type_identifier) @inherit.child
         (generic_type type: (type_identifier) @inherit.child)
         (scoped_type_identifier name: (type_identifier) @inherit.child)
         (generic_type type: (scoped_type_identifier name: (type_identifier) @inherit.child))])
(trait_item name: (type_identifier) @inherit.child
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @inherit.base))

(assignment_expression left: (field_expression value: (self))) @mutation
(compound_assignment_expr left: (field_expression value: (self))) @mutation
