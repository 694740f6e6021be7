"""Calls through an attribute of a class itself (issue 12 item 1): `Book.objects.published()`,
Django's managers made from a queryset (`as_manager()`, `from_queryset(...)`), an enum's members
(`Color.RED.describe()`) and a class body's instance (`Holder.registry.add()`). Each was a guess
by name at best (a queryset method named alike in two models: below the listing threshold, so
"what breaks if StoreQuerySet.active changes" listed nothing) or, for Django's own methods on a
manager, a guess at a workspace method of the same name."""

import test_return_calls as return_calls
from test_return_calls import calls_at

FILES = {
    "shop/__init__.py": "",
    "shop/models.py": (
        "from django.db import models\n\n\n"
        "class BookQuerySet(models.QuerySet):\n"
        "    def published(self):\n"                                                  # 5
        "        return self.filter(published=True)\n\n\n"
        "class AuthorQuerySet(models.QuerySet):\n"
        "    def famous(self):\n"                                                     # 10
        "        return self.filter(fans__gt=1000)\n\n\n"
        "class AuthorManager(models.Manager.from_queryset(AuthorQuerySet)):\n"
        "    def create_author(self, name):\n"                                        # 15
        "        return self.create(name=name)\n\n\n"
        "class StoreQuerySet(models.QuerySet):\n"
        "    def active(self):\n"                                                     # 20
        "        return self.filter(open=True)\n\n\n"
        "class ShelfQuerySet(models.QuerySet):\n"
        "    def active(self):\n"                                                     # 25
        "        return self.filter(used=True)\n\n\n"
        "class Book(models.Model):\n"
        "    objects = BookQuerySet.as_manager()\n\n\n"                               # 30
        "class Author(models.Model):\n"
        "    objects = AuthorManager()\n\n\n"
        "class Store(models.Model):\n"                                                # 36
        "    objects = StoreQuerySet.as_manager()\n\n\n"
        "class Shelf(models.Model):\n"
        "    objects = models.Manager.from_queryset(ShelfQuerySet)()\n"),             # 41
    "shop/library.py": ("class Library:\n    def filter(self, f):\n        return f\n\n"
                        "    def get(self, name):\n        return name\n"),
    "shop/colors.py": ("import enum\n\n\nclass Color(enum.Enum):\n    RED = 1\n\n    def describe(self):\n"
                       "        return self.name\n\n\nclass Registry:\n    def add(self, x):\n        return x\n\n\n"
                       "class Holder:\n    registry = Registry()\n"),
    "shop/views.py": (
        "from django.contrib.auth.models import User\n"
        "from shop.colors import Color, Holder\n"
        "from shop.models import Author, Book, Shelf, Store\n\n\n"
        "def views():\n"
        "    Book.objects.published()\n"                                              # 7
        "    Author.objects.famous()\n"                                               # 8
        "    Author.objects.create_author('x')\n"                                     # 9
        "    Store.objects.active()\n"                                                # 10
        "    Shelf.objects.active()\n"                                                # 11
        "    Book.objects.filter(title='x')\n"                                        # 12
        "    User.objects.get(name='x')\n"                                            # 13
        "    Color.RED.describe()\n"                                                  # 14
        "    Holder.registry.add(1)\n"),                                              # 15
}


def test_calls_through_a_class_attribute_reach_its_methods(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        at = lambda line: calls_at(ws, "shop/views.py", line)  # noqa: E731
        assert at(7) == [("shop/models.py::BookQuerySet.published", "returned")]  # as_manager()
        assert at(8) == [("shop/models.py::AuthorQuerySet.famous", "returned_inherited")]  # a from_queryset base
        assert at(9) == [("shop/models.py::AuthorManager.create_author", "returned")]
        assert at(10) == [("shop/models.py::StoreQuerySet.active", "returned")]  # not ShelfQuerySet's
        assert at(11) == [("shop/models.py::ShelfQuerySet.active", "returned")]  # from_queryset(...)()
        assert at(12) == []  # Django's own filter: no guess at Library.filter
        assert at(13) == []  # a class from outside: its manager's get is not Library.get
        assert at(14) == [("shop/colors.py::Color.describe", "returned")]  # an enum member is an instance
        assert at(15) == [("shop/colors.py::Registry.add", "returned")]
        # the manager class has the queryset's methods: what breaks if the queryset's change
        bases = ws.store.cursor().execute("SELECT dst FROM edges WHERE kind = 'INHERITS' AND src = ?",
                                          ["shop/models.py::AuthorManager"]).fetchall()
        assert bases == [("shop/models.py::AuthorQuerySet",)]
        listed = ws.impact("shop/models.py::StoreQuerySet.active", depth=1)  # the default threshold
        assert [d["symbol"] for d in listed["dependents"]] == ["views"]
    finally:
        ws.close()


def _edit_and_compare(tmp_path, write_files, old, new, line, want):
    return_calls._edit_and_compare(tmp_path, write_files, "shop/models.py", old, new, ("shop/views.py", line),
                                   want, strategies=("returned",), files=FILES)


def test_another_queryset_retypes_the_callers_in_other_files(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "objects = StoreQuerySet.as_manager()",
                      "objects = ShelfQuerySet.as_manager()", 10, [("shop/models.py::ShelfQuerySet.active", "returned")])


def test_a_manager_made_from_another_queryset_retypes_its_callers(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "from_queryset(AuthorQuerySet)", "from_queryset(BookQuerySet)", 8, [])


def test_a_queryset_method_renamed_away_leaves_no_edge(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "def published(self):", "def visible(self):", 7, [])


# Django's documented forms of a manager with a queryset's methods bound at module level
# (`BookManager = PublishedManager.from_queryset(BookQuerySet)`, then `objects = BookManager()`):
# the class Django makes there is a class of the index, a subclass of both
NAMED_MANAGERS = {
    "shop/__init__.py": "",
    "shop/models.py": (
        "from django.db import models\n\n\n"
        "class PublishedManager(models.Manager):\n"
        "    def recent(self):\n"                                                     # 5
        "        return self.order_by('-id')\n\n\n"
        "class BookQuerySet(models.QuerySet):\n"
        "    def published(self):\n"                                                  # 10
        "        return self.filter(published=True)\n\n\n"
        "class PaperQuerySet(models.QuerySet):\n"
        "    def published(self):\n"                                                  # 15
        "        return self.filter(out=True)\n\n\n"
        "BookManager = PublishedManager.from_queryset(BookQuerySet)\n"
        "PlainManager = models.Manager.from_queryset(PaperQuerySet)\n\n\n"           # 20
        "class Book(models.Model):\n"
        "    objects = BookManager()\n\n\n"
        "class Paper(models.Model):\n"                                                # 25
        "    objects = PlainManager()\n"),
    "shop/views.py": (
        "from shop.models import Book, Paper\n\n\n"
        "def views():\n"
        "    Book.objects.published()\n"                                              # 5
        "    Book.objects.recent()\n"                                                 # 6
        "    Paper.objects.published()\n"                                             # 7
        "    Paper.objects.recent()\n"),                                              # 8
}


def test_a_manager_class_made_at_module_level_has_the_manager_s_and_the_queryset_s_methods(tmp_path, index_files):
    ws = index_files(tmp_path, NAMED_MANAGERS)
    try:
        at = lambda line: calls_at(ws, "shop/views.py", line)  # noqa: E731
        assert at(5) == [("shop/models.py::BookQuerySet.published", "returned_inherited")]  # not PaperQuerySet's
        assert at(6) == [("shop/models.py::PublishedManager.recent", "returned_inherited")]
        assert at(7) == [("shop/models.py::PaperQuerySet.published", "returned_inherited")]
        assert at(8) == []  # Django's Manager has no `recent`: no guess at PublishedManager's
        bases = ws.store.cursor().execute(
            "SELECT src, dst FROM edges WHERE kind = 'INHERITS' AND src_path = 'shop/models.py' ORDER BY src, dst").fetchall()
        assert bases == [("shop/models.py::BookManager", "shop/models.py::BookQuerySet"),
                         ("shop/models.py::BookManager", "shop/models.py::PublishedManager"),
                         ("shop/models.py::PlainManager", "shop/models.py::PaperQuerySet")]
        listed = ws.impact("shop/models.py::BookQuerySet.published", depth=1)  # the default threshold
        assert [d["symbol"] for d in listed["dependents"]] == ["views"]
    finally:
        ws.close()


def test_a_module_level_manager_made_from_another_queryset_retypes_its_callers(tmp_path, write_files):
    return_calls._edit_and_compare(tmp_path, write_files, "shop/models.py", "from_queryset(BookQuerySet)",
                                   "from_queryset(PaperQuerySet)", ("shop/views.py", 5),
                                   [("shop/models.py::PaperQuerySet.published", "returned_inherited")],
                                   strategies=("returned",), files=NAMED_MANAGERS)
