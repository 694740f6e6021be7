; Python: definitions, calls, imports, inheritance, state mutations.
; Capture convention: grammars/README.md

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
; a dunder read from a name (`marshmallow.__version__`): what a module's `__getattr__` serves (store/module_getattr.py)
((attribute object: (identifier) @receiver attribute: (identifier) @name) @reference.read
 (#match? @name "^__[a-z_]+__$") (#not-match? @receiver "^(self|cls)$"))
; `raise Error(...)` makes an instance only to raise it: its maker holds none (graph/tests_reach.py)
(raise_statement . (call function: [(identifier) @raised (attribute attribute: (identifier) @raised)]))
; a decorator without arguments is called with what it decorates (`@attr.define`, `@cached`)
(decorator (identifier) @name) @reference.call
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
; a class statement calls its metaclass (`class Schema(Base, metaclass=SchemaMeta)`): its __new__ and
; __init__ run where the statement does (a class defined in a test)
(class_definition superclasses: (argument_list (keyword_argument name: (identifier) @_kw value: (identifier) @name) @reference.call) (#eq? @_kw "metaclass"))
(class_definition superclasses: (argument_list (keyword_argument name: (identifier) @_kw value: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call) (#eq? @_kw "metaclass"))

; import a.b / import a.b as m
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import

; from x import y / from x import y as z / from x import *
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name) @import
(import_from_statement module_name: (_) @import.module name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.name) @import

(class_definition name: (identifier) @inherit.child superclasses: (argument_list (identifier) @inherit.base))
(class_definition name: (identifier) @inherit.child superclasses: (argument_list (attribute) @inherit.base))
; Django's `class BookManager(models.Manager.from_queryset(BookQuerySet))`: a subclass of the manager
; that has the queryset's methods (copied onto it): both are what its calls reach
(class_definition name: (identifier) @inherit.child superclasses: (argument_list (call function: (attribute object: [(identifier) (attribute)] @inherit.base attribute: (identifier) @_made) (#eq? @_made "from_queryset"))))
(class_definition name: (identifier) @inherit.child superclasses: (argument_list (call function: (attribute attribute: (identifier) @_made) arguments: (argument_list . [(identifier) (attribute)] @inherit.base) (#eq? @_made "from_queryset"))))
; and Django's `BookManager = PublishedManager.from_queryset(BookQuerySet)` at module level: the class
; Django makes there, a subclass of the manager with the queryset's methods (`objects = BookManager()`)
(module (expression_statement (assignment left: (identifier) @name right: (call function: (attribute attribute: (identifier) @_made) arguments: (argument_list . [(identifier) (attribute)])) (#eq? @_made "from_queryset")) @definition.class))
(module (expression_statement (assignment left: (identifier) @inherit.child right: (call function: (attribute object: [(identifier) (attribute)] @inherit.base attribute: (identifier) @_made) (#eq? @_made "from_queryset")))))
(module (expression_statement (assignment left: (identifier) @inherit.child right: (call function: (attribute attribute: (identifier) @_made) arguments: (argument_list . [(identifier) (attribute)] @inherit.base) (#eq? @_made "from_queryset")))))

; a function returning `type(name, (Base,), ns)` makes classes of Base: `X = make(...)` at module level is
; one, as `X = type("X", (Base, Mixin), ns)` is (index/extract.py reads the module-level assignments)
(function_definition name: (identifier) @maker.name body: (block (return_statement (call function: (identifier) @_t arguments: (argument_list . (_) . (tuple) @maker.bases)) (#eq? @_t "type"))))
(assignment left: (attribute object: (identifier) @_self) (#eq? @_self "self")) @mutation
(augmented_assignment left: (attribute object: (identifier) @_self) (#eq? @_self "self")) @mutation

; a function under decorators is what the outermost one returns (`@click.group() def cli()`: a Group)
(decorated_definition . (decorator (_) @decorated.by) definition: (function_definition name: (identifier) @decorated.name)) @decorated

; a module-level alias (`s = attributes = attrs`, `frozen = partial(define, ...)`): an import of
; what it names (index/aliases.py)
(module (expression_statement (assignment) @alias))

; what a name is bound to, for receiver types (index/receivers.py): the strongest binding wins
(class_definition name: (identifier) @inherit.child superclasses: (argument_list (subscript value: [(identifier) (attribute)] @inherit.base)))
(assignment left: (identifier) @bind.name right: (call function: [(identifier) (attribute)] @bind.call) (#not-match? @bind.call "^((typing|t)[.])?cast$")) @bind
; a walrus binds as an assignment does (`if (m := _key_re.match(s)) is not None: m.start()`)
(named_expression name: (identifier) @bind.name value: (call function: [(identifier) (attribute)] @bind.call) (#not-match? @bind.call "^((typing|t)[.])?cast$")) @bind
; `x = t.cast(T, v)`, `self.x = typing.cast(Type["T"], v)`: what the cast says from there on, as a
; binding to a call would (a cast narrows in one branch: not a declaration for the whole function)
(assignment left: (identifier) @bind.name right: (call function: [(identifier) (attribute)] @_cast arguments: (argument_list . (_) @bind.cast)) (#match? @_cast "^((typing|t)[.])?cast$")) @bind
(assignment left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name) right: (call function: [(identifier) (attribute)] @_cast arguments: (argument_list . (_) @bind.cast)) (#match? @_cast "^((typing|t)[.])?cast$")) @bind
; Django's `objects = models.Manager.from_queryset(BookQuerySet)()` (index/returns.py `_called`)
(assignment left: (identifier) @bind.name right: (call function: (call function: (attribute attribute: (identifier) @_made)) @bind.call) (#eq? @_made "from_queryset")) @bind
(assignment left: (identifier) @bind.name type: (type) @bind.type) @bind
(assignment left: (identifier) @bind.name right: [(list) (dictionary) (set) (string) (concatenated_string) (list_comprehension) (dictionary_comprehension) (set_comprehension) (integer) (float)] @bind.literal) @bind
(assignment left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name) right: (call function: [(identifier) (attribute)] @bind.call) (#not-match? @bind.call "^((typing|t)[.])?cast$")) @bind
(assignment left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name) type: (type) @bind.type) @bind
(assignment left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name) right: (identifier) @bind.alias) @bind
; `self._remove = self._queue.remove`: `self._remove(x)` calls what `self._queue` has (index/instance.py)
(assignment left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name) right: (attribute) @bind.bound) @bind
; `cls = template_class or self.template_class`, `x = Foo() if flag else Bar()`: what its operands
; agree on (index/returns.py)
(assignment left: (identifier) @bind.name right: [(boolean_operator operator: "or") (conditional_expression)] @bind.either) @bind
; `use = serializer`, `use = self.serializer` in a function: what that name or attribute is, read as the one
; operand of the above (index/extract.py; a class body's are `held`, a module's aliases index/aliases.py)
(assignment left: (identifier) @bind.name right: [(identifier) (attribute)] @bind.same) @bind
(assignment left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name) right: [(boolean_operator operator: "or") (conditional_expression)] @bind.either) @bind
(assignment left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name) right: [(list) (dictionary) (set) (string) (list_comprehension) (dictionary_comprehension) (set_comprehension)] @bind.literal) @bind
; a class attribute holding a class or function (`context_class = Context`): `self.context_class()`
; calls what it holds (index/extract.py)
; (`csrf_class = None`: what a subclass or the instance puts there runs, graph/tests_through.py's dispatch does not guess it)
(class_definition body: (block (expression_statement (assignment left: (identifier) @bind.name right: [(identifier) (attribute) (none)] @bind.held) @bind)))
; `T = TypeVar("T", bound="Base")`: a T is a Base (`cls: type[T]`, then `cls()` makes a Base)
(module (expression_statement (assignment left: (identifier) @bind.name right: (call function: [(identifier) (attribute)] @_tv arguments: (argument_list (keyword_argument name: (identifier) @_kw value: [(string) (identifier) (attribute)] @bind.typevar))) (#match? @_tv "^((typing|t|typing_extensions)[.])?TypeVar$") (#eq? @_kw "bound")) @bind))
;  and `x = staticmethod(f)` / `classmethod(f)` holds f (werkzeug's `json_dumps = staticmethod(json.dumps)`)
(class_definition body: (block (expression_statement (assignment left: (identifier) @bind.name right: (call function: (identifier) @_wrap arguments: (argument_list . [(identifier) (attribute)] @bind.held .)) (#any-of? @_wrap "staticmethod" "classmethod")) @bind)))
; `self` binds nothing a call's receiver type needs (`self.x` is looked up as its own name), and is
; most plain parameters: not captured
((parameters (identifier) @bind.name) @bind (#not-eq? @bind.name "self"))
(parameters (default_parameter name: (identifier) @bind.name)) @bind
; `def cachedmethod(cache, key=keys.methodkey)`, then `key(self, *args)`: the default is what such a call
; calls when the caller passes none (index/extract.py adds a call of it; receivers.Scopes.defaults)
(parameters [(default_parameter name: (identifier) @bind.name value: [(identifier) (attribute)] @bind.default)
             (typed_default_parameter name: (identifier) @bind.name value: [(identifier) (attribute)] @bind.default)]) @bind
(parameters (typed_parameter (identifier) @bind.name type: (type) @bind.type)) @bind
(parameters (typed_default_parameter name: (identifier) @bind.name type: (type) @bind.type)) @bind
; `*args` is a tuple and `**kwargs` a dict (typed or not): their methods are never a workspace's
(parameters [(list_splat_pattern (identifier) @bind.name) (dictionary_splat_pattern (identifier) @bind.name)] @bind.literal) @bind
(parameters (typed_parameter [(list_splat_pattern (identifier) @bind.name) (dictionary_splat_pattern (identifier) @bind.name)] @bind.literal)) @bind
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @bind.call) alias: (as_pattern_target (identifier) @bind.name))) @bind
; `head, sep, tail = value.partition(";")`: each name one of a string's parts, when the value is one
; (index/returns.py); not of any call: `a, b = self.pair()` gives a tuple's slots, no elements alike
(assignment left: [(pattern_list (identifier) @bind.name) (tuple_pattern (identifier) @bind.name)] right: (call function: (attribute attribute: (identifier) @_part)) @bind.iter (#match? @_part "^(partition|rpartition|split|rsplit|splitlines)$")) @bind
; `groups = defaultdict(list)`: its values are what the factory makes (`groups[k].append(v)` is a list's)
(assignment left: (identifier) @bind.name right: (call function: [(identifier) (attribute)] @_dd arguments: (argument_list . [(identifier) (attribute)] @bind.factory .)) (#match? @_dd "^(collections[.])?defaultdict$")) @bind
(assignment left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name) right: (call function: [(identifier) (attribute)] @_dd arguments: (argument_list . [(identifier) (attribute)] @bind.factory .)) (#match? @_dd "^(collections[.])?defaultdict$")) @bind
; `for x in items` / `for x in self.signers()`: x is an element of what is iterated (index/returns.py)
(for_statement left: (identifier) @bind.name right: [(identifier) (call) (attribute)] @bind.iter) @bind
; ... and in a comprehension (`[x.as_const() for x in self.items]`), bound in the function around it
(for_in_clause left: (identifier) @bind.name right: [(identifier) (call) (attribute)] @bind.iter) @bind
; `for k, v in pairs` / `for name, item in table.items()`: the first two names, each a slot of what is
; iterated (`pairs: list[tuple[Key, Item]]`, `table: dict[str, Item]`: index/elements.py)
([(for_statement left: [(pattern_list . (identifier) @bind.name) (tuple_pattern . (identifier) @bind.name)] right: [(identifier) (call) (attribute)] @bind.first) (for_in_clause left: [(pattern_list . (identifier) @bind.name) (tuple_pattern . (identifier) @bind.name)] right: [(identifier) (call) (attribute)] @bind.first)] @bind)
([(for_statement left: [(pattern_list . (_) . (identifier) @bind.name) (tuple_pattern . (_) . (identifier) @bind.name)] right: [(identifier) (call) (attribute)] @bind.second) (for_in_clause left: [(pattern_list . (_) . (identifier) @bind.name) (tuple_pattern . (_) . (identifier) @bind.name)] right: [(identifier) (call) (attribute)] @bind.second)] @bind)
; `for i, (k, v) in enumerate(pairs)`: the names of a tuple in the second place, each a slot of that slot
([(for_statement left: [(pattern_list . (_) . (tuple_pattern . (identifier) @bind.name)) (tuple_pattern . (_) . (tuple_pattern . (identifier) @bind.name))] right: [(identifier) (call) (attribute)] @bind.second_first) (for_in_clause left: [(pattern_list . (_) . (tuple_pattern . (identifier) @bind.name)) (tuple_pattern . (_) . (tuple_pattern . (identifier) @bind.name))] right: [(identifier) (call) (attribute)] @bind.second_first)] @bind)
([(for_statement left: [(pattern_list . (_) . (tuple_pattern . (_) . (identifier) @bind.name)) (tuple_pattern . (_) . (tuple_pattern . (_) . (identifier) @bind.name))] right: [(identifier) (call) (attribute)] @bind.second_second) (for_in_clause left: [(pattern_list . (_) . (tuple_pattern . (_) . (identifier) @bind.name)) (tuple_pattern . (_) . (tuple_pattern . (_) . (identifier) @bind.name))] right: [(identifier) (call) (attribute)] @bind.second_second)] @bind)
; `isinstance(x, Foo)` guarding lines: `if`/`elif` (alone or first of an `and`) its block, `... and x.m()`
; its right side, `assert` and `if not ...: return|raise|continue` the lines after it in the block: x is a
; Foo there (index/receivers.py Scopes.narrowed; a tuple of types: what its members agree on, `(str, bytes)` Python's)
([(if_statement condition: [(call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .)) (boolean_operator left: (call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .)) operator: "and")] consequence: (block) @bind.until) (elif_clause condition: [(call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .)) (boolean_operator left: (call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .)) operator: "and")] consequence: (block) @bind.until) (boolean_operator left: (call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .)) operator: "and" right: (_) @bind.until)] @bind (#eq? @_is "isinstance"))
; ... and the last of an `and` (`if not max_age and isinstance(expires, datetime):`): true only where it is
([(if_statement condition: (boolean_operator operator: "and" right: (call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .))) consequence: (block) @bind.until) (elif_clause condition: (boolean_operator operator: "and" right: (call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .))) consequence: (block) @bind.until)] @bind (#eq? @_is "isinstance"))
(assert_statement . (call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .)) (#eq? @_is "isinstance")) @bind
(if_statement condition: (not_operator argument: (call function: (identifier) @_is arguments: (argument_list . (identifier) @bind.name . [(identifier) (attribute) (tuple)] @bind.narrow .))) consequence: (block [(return_statement) (raise_statement) (continue_statement)] .) @bind.after !alternative (#eq? @_is "isinstance")) @bind
; what a function returns (index/returns.py): its annotation, else its `return x` / `return f(...)`
(function_definition name: (identifier) @returns.name return_type: (type) @returns.type) @returns
(return_statement [(identifier) (call)] @returns.value) @returns
(yield [(identifier) (call)] @returns.yield) @returns
