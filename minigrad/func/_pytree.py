"""Nested tuples, lists and dicts of tensors ("pytrees"), flattened and rebuilt as torch.utils._pytree
does, with its TreeSpec printing (which torch.func's error messages show)."""


class TreeSpec:
    def __init__(self, type_, context, children):
        self.type, self.context, self.children = type_, context, children

    @property
    def num_leaves(self):
        return sum(c.num_leaves for c in self.children)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children == other.children)

    def __repr__(self, indent=0):
        head = f"TreeSpec({self.type.__name__}, {self.context}, ["
        body = ""
        if self.children:
            indent += 2
            body += self.children[0].__repr__(indent)
            body += "," if len(self.children) > 1 else ""
            body += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return head + body + "])"

    def pprint(self):
        """torch's treespec_pprint: (*, [*, {'a': *}])."""
        parts = [c.pprint() for c in self.children]
        if self.type is dict:
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.context, parts)) + "}"
        if self.type is list:
            return "[" + ", ".join(parts) + "]"
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])

    num_leaves = 1

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __repr__(self, indent=0):
        return "*"

    def pprint(self):
        return "*"


LEAF = LeafSpec()


def _is_node(x):
    return type(x) in (tuple, list, dict) or (isinstance(x, tuple) and hasattr(x, "_fields"))


def tree_flatten(tree):
    leaves = []

    def walk(x):
        if isinstance(x, dict) and type(x) is dict:
            keys = list(x.keys())
            return TreeSpec(dict, keys, [walk(x[k]) for k in keys])
        if _is_node(x):
            return TreeSpec(type(x), None, [walk(e) for e in x])
        leaves.append(x)
        return LEAF
    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if isinstance(s, LeafSpec):
            return next(it)
        kids = [build(c) for c in s.children]
        if s.type is dict:
            return dict(zip(s.context, kids))
        if s.type not in (tuple, list):  # a namedtuple
            return s.type(*kids)
        return s.type(kids)
    return build(spec)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """The leaves of `prefix`, a tree whose leaves stand for whole subtrees of `spec`, repeated
    over those subtrees; None where prefix does not fit spec."""
    out = []

    def walk(p, s):
        if not _is_node(p):
            out.extend([p] * s.num_leaves)
            return True
        if isinstance(s, LeafSpec) or type(p) is not s.type and not (
                isinstance(p, tuple) and s.type is not dict and s.type is not list and isinstance(p, s.type)):
            return False
        if s.type is dict:
            if list(p.keys()) != list(s.context) and set(p.keys()) != set(s.context):
                return False
            return all(walk(p[k], c) for k, c in zip(s.context, s.children))
        if len(p) != len(s.children):
            return False
        return all(walk(e, c) for e, c in zip(p, s.children))
    return out if walk(prefix, spec) else None
