"""Ruby: what the query captures (extract), how requires resolve (the indexed graph: tests/contracts)."""

from __future__ import annotations

import pytest

from memory_lsp.index.extract import extract
from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext
from memory_lsp.index.resolvers import ruby as ruby_resolver


def facts(source: str, path: str = "lib/a.rb"):
    return extract(path, source.encode(), "ruby")


# ---- extraction ----------------------------------------------------------------------------

IMPORT_CASES = [
    ("require_relative 'lib/x'", [(1, "'lib/x'", "require_relative", None)]),
    ('require "json"', [(1, '"json"', "require", None)]),
    ("require('net/http')", [(1, "'net/http'", "require", None)]),
    ("require_relative '../y'\nrequire 'z'",
     [(1, "'../y'", "require_relative", None), (2, "'z'", "require", None)]),
    ("require File.expand_path('x', __dir__)", []),  # not a literal: nothing to follow
    ("obj.require 'x'", []),  # a method on an object, not Kernel#require
]


@pytest.mark.parametrize("source,expected", IMPORT_CASES, ids=[c[0] for c in IMPORT_CASES])
def test_import_captures(source, expected):
    assert sorted(facts(source).imports, key=str) == sorted(expected, key=str)


SOURCE = """\
require_relative 'base'

module App
  class Child < Base
    include Helpers
    extend Mod::Tools
    attr_reader :x

    def initialize(x)
      @x = x
      @y ||= 2
      self.z = 3
      helper(1)
      cleanup
      self.go
      Net::HTTP.get(uri)
      obj.first(2).last
      `ls`
    end

    def self.build
      new(1)
    end

    class << self
      def meta; end
    end
  end

  class Other < Mod::Base2; end
  class Mod::Scoped; end
  module Util
    def self.helper; end
  end
end

def top_level; end
"""


def test_definitions():
    syms = {(s[0], s[2]) for s in facts(SOURCE).symbols}
    assert syms == {
        ("App", "module"), ("App.Child", "class"), ("App.Child.initialize", "method"),
        ("App.Child.build", "method"), ("App.Child.meta", "method"), ("App.Other", "class"),
        ("App.Scoped", "class"), ("App.Util", "module"), ("App.Util.helper", "method"),
        ("top_level", "function"),
    }


def test_calls():
    calls = {(r[1], r[3], r[4]) for r in facts(SOURCE).refs if r[0] == "call"}
    init = "App.Child.initialize"
    assert calls == {
        (init, "z", "self"),  # the setter self.z = 3
        (init, "helper", None), (init, "cleanup", None), (init, "go", "self"),
        (init, "get", "Net::HTTP"), (init, "first", "obj"), (init, "last", "obj.first(2)"),
        (init, "`", None), ("App.Child.build", "new", None),
    }  # require_relative, include, extend and attr_reader are not calls


def test_inheritance_and_mutations():
    f = facts(SOURCE)
    inherits = {(r[1], r[3]) for r in f.refs if r[0] == "inherit"}
    assert inherits == {("App.Child", "Base"), ("App.Child", "Helpers"), ("App.Child", "Tools"),
                        ("App.Other", "Base2")}
    assert f.mutations == 3  # @x =, @y ||=, self.z =


@pytest.mark.parametrize("path,is_test", [
    ("spec/models/user_spec.rb", True), ("lib/user_spec.rb", True), ("test/user_test.rb", True),
    ("spec/spec_helper.rb", True), ("lib/user.rb", False), ("lib/testing.rb", False),
])
def test_test_file_rules(path, is_test):
    assert facts("x = 1", path=path).is_test is is_test


@pytest.mark.parametrize("source,category", [
    ("require 'net/http'", "network"),
    ("require 'faraday'", "network"),
    ("def f; HTTParty.get(url); end", "network"),
    ("require 'fileutils'", "file_io"),
    ("def f; File.read('x'); end", "file_io"),
    ("def f; FileUtils.rm_rf('x'); end", "file_io"),
    ("require 'open3'", "subprocess"),
    ("def f; system('ls'); end", "subprocess"),
    ("def f; `ls`; end", "subprocess"),
    ("def f; %x(ls); end", "subprocess"),
    ("def f; Process.spawn('ls'); end", "subprocess"),
    ("require 'pg'", "database"),
    ("require 'sequel'", "database"),
    ("def f; ActiveRecord::Base.transaction { }; end", "database"),
    ("require 'redis'", "cache"),
    ("def f; Redis.new; end", "cache"),
])
def test_side_effects(source, category):
    assert category in facts(source).side_effects


def test_plain_file_has_no_side_effects():
    assert facts("require 'json'\nrequire_relative 'file'\ndef f; File.join('a', 'b'); end").side_effects == []


# ---- resolver ------------------------------------------------------------------------------

def _resolve(tmp_path, files, rows):
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    ctx = ResolveContext(root=tmp_path, paths=frozenset(files))
    return ruby_resolver.resolve([ImportRow(*r) for r in rows], ctx)


def test_resolver(tmp_path):
    files = ["lib/app.rb", "lib/app/user.rb", "lib/app/models/base.rb", "config.rb",
             "gems/tool/lib/tool/cli.rb", "spec/user_spec.rb", "a/dup.rb", "b/dup.rb"]
    rows = [
        ("lib/app/user.rb", 1, "'models/base'", "require_relative", None),
        ("spec/user_spec.rb", 2, "'../lib/app/user.rb'", "require_relative", None),
        ("lib/app/user.rb", 3, "'missing'", "require_relative", None),
        ("spec/user_spec.rb", 4, "'app/user'", "require", None),  # the lib/ load path
        ("spec/user_spec.rb", 5, "'config'", "require", None),  # the workspace root
        ("spec/user_spec.rb", 6, "'tool/cli'", "require", None),  # some other lib/ folder
        ("spec/user_spec.rb", 7, "'json'", "require", None),
        ("spec/user_spec.rb", 8, "'dup'", "require", None),  # ambiguous: a gem, say
        ("spec/user_spec.rb", 9, "'./config'", "require", None),
    ]
    out = _resolve(tmp_path, files, rows)
    assert [[(t.path, t.strategy) for t in ts] for ts in out[:2]] == [
        [("lib/app/models/base.rb", "relative")], [("lib/app/user.rb", "relative")]]
    assert out[2] == []
    assert [(t.path, t.strategy) for t in out[3]] == [("lib/app/user.rb", "load_path")]
    assert [(t.path, t.strategy) for t in out[4]] == [("config.rb", "root")]
    assert [(t.path, t.strategy) for t in out[5]] == [("gems/tool/lib/tool/cli.rb", "load_path")]
    assert out[6] == EXTERNAL and out[7] == EXTERNAL
    assert [t.path for t in out[8]] == ["config.rb"]
