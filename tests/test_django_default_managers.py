"""The managers Django adds to a model (issue 12 items 1, 2): `Book.objects` of a model that
declares none is a Manager Django makes, and so is `_base_manager`. In a Django project, `Book.objects.get(pk=1)` was a guess by name
at every workspace `get` (a cache's, a custom queryset's); in Django's own source,
`FlatPage.objects.filter(...)` did not reach `QuerySet.filter` (codebase-memory-mcp's 42 callers
of it: BENCHMARKS.md)."""

from test_return_calls import _edit_and_compare, calls_at

PROJECT = {
    "shop/__init__.py": "",
    "shop/models.py": (
        "from django.db import models\n\n\n"
        "class PublishedQuerySet(models.QuerySet):\n"
        "    def get(self, *args, **kwargs):\n"                                       # 5
        "        return super().get(*args, **kwargs)\n\n\n"
        "class Timestamped(models.Model):\n"
        "    class Meta:\n"                                                           # 10
        "        abstract = True\n\n\n"
        "class Book(Timestamped):\n"
        "    title = models.CharField(max_length=10)\n\n\n"                           # 15
        "class Paper(models.Model):\n"
        "    objects = PublishedQuerySet.as_manager()\n\n\n"                          # 18
        "class Cache:\n"
        "    def get(self, key):\n"                                                   # 21
        "        return key\n"),
    "shop/views.py": (
        "from shop.models import Book, Paper\n\n\n"
        "def view():\n"
        "    Book.objects.get(pk=1)\n"                                                # 5: Django's Manager
        "    Book._base_manager.get(pk=2)\n"                                          # 6
        "    Book._default_manager.get(pk=3)\n"                                       # 7: the first declared
        "    Paper.objects.get(pk=4)\n"                                               # 8: the declared one
        "    Paper._base_manager.get(pk=5)\n"),                                       # 9: Django's plain one
}

# Django's own source, as much of it as the rule reads: a Manager with QuerySet's methods
DJANGO = {
    "django/__init__.py": "",
    "django/db/__init__.py": "",
    "django/db/models/__init__.py": ("from django.db.models.base import Model\n"
                                     "from django.db.models.manager import Manager\n"),
    "django/db/models/query.py": "class QuerySet:\n    def filter(self, **kw):\n        return self\n",
    "django/db/models/manager.py": (
        "from django.db.models.query import QuerySet\n\n\n"
        "class BaseManager:\n"
        "    @classmethod\n"
        "    def from_queryset(cls, queryset_class):\n"
        "        return type(cls.__name__, (cls,), {})\n\n\n"
        "class Manager(BaseManager.from_queryset(QuerySet)):\n"
        "    pass\n"),
    "django/db/models/base.py": "class Model:\n    pass\n",
    "django/contrib/__init__.py": "",
    "django/contrib/flatpages/__init__.py": "",
    "django/contrib/flatpages/models.py": ("from django.db import models\n\n\n"
                                           "class FlatPage(models.Model):\n    pass\n"),
    "django/contrib/flatpages/views.py": (
        "from django.contrib.flatpages.models import FlatPage\n\n\n"
        "def render(url):\n"
        "    return FlatPage.objects.filter(url=url)\n"),                             # 5
}


def test_a_model_s_managers_are_django_s_not_a_workspace_method_of_the_same_name(tmp_path, index_files):
    ws = index_files(tmp_path, PROJECT)
    try:
        at = lambda line: calls_at(ws, "shop/views.py", line)  # noqa: E731
        assert at(5) == [] and at(6) == []  # not Cache.get nor PublishedQuerySet.get
        assert [s for _d, s in at(7)] == ["name_ambiguous"] * 2  # another attribute's: not read
        assert at(8) == [("shop/models.py::PublishedQuerySet.get", "returned")]
        assert at(9) == []
    finally:
        ws.close()


def test_in_django_s_own_source_a_model_s_manager_has_queryset_s_methods(tmp_path, index_files):
    ws = index_files(tmp_path, DJANGO)
    try:
        assert calls_at(ws, "django/contrib/flatpages/views.py", 5) == [
            ("django/db/models/query.py::QuerySet.filter", "returned_inherited")]
        callers = ws.impact("django/db/models/query.py::QuerySet.filter", depth=1)["dependents"]
        assert [d["symbol"] for d in callers] == ["render"]
    finally:
        ws.close()


def test_a_manager_declared_later_retypes_the_callers_as_a_fresh_index(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "shop/models.py", "    title = models.CharField(max_length=10)\n",
                      "    objects = PublishedQuerySet.as_manager()\n", ("shop/views.py", 5),
                      [("shop/models.py::PublishedQuerySet.get", "returned")], files=PROJECT)


def test_a_class_that_stops_being_a_model_is_guessed_on_again(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "shop/models.py", "class Timestamped(models.Model):",
                      "class Timestamped:", ("shop/views.py", 5),
                      [("shop/models.py::Cache.get", "name_ambiguous"),
                       ("shop/models.py::PublishedQuerySet.get", "name_ambiguous")], strategies=("name",), files=PROJECT)
