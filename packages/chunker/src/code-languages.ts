import type { Node } from "web-tree-sitter";
import type { SymbolKind } from "./types.js";

/**
 * What the code chunker knows about each language: which tree-sitter grammar parses it, which
 * syntax nodes are declarations (and of what kind), how to find their names and the bodies whose
 * members a long declaration is cut at. Node type names are those of the grammars shipped in
 * `tree-sitter-wasms`.
 */
export interface LanguageSpec {
  /** Canonical name (what `language` options and fence tags resolve to). */
  name: string;
  /** The language chunks report, when not `name` (TSX is TypeScript to people filtering results). */
  language?: string;
  /** Grammar file stem: `tree-sitter-<grammar>.wasm`. */
  grammar: string;
  /** Other names (file-kind names, Markdown fence tags) that mean this language. */
  aliases: readonly string[];
  /** Declaration node types and their kind; a function decides from the node (null: not a declaration). */
  declarations: Readonly<Record<string, SymbolKind | ((node: Node) => SymbolKind | null)>>;
  /** Nodes that only wrap a declaration (`export`, decorators, `template<…>`): the declaration inside is used. */
  wrappers?: Readonly<Record<string, (node: Node) => Node | null>>;
  /** Nodes whose named children are read as if they were siblings (`#ifdef` blocks, Java enum bodies). */
  transparent?: ReadonlySet<string>;
  /** Nodes that belong to the declaration below them: comments, decorators, attributes. */
  preamble: ReadonlySet<string>;
  /** The node naming a declaration; by default its `name` field. */
  nameNode?: (node: Node) => Node | null;
  /** The node holding a declaration's members; by default its `body` field. */
  body?: (node: Node) => Node | null;
  /** A docstring inside the declaration (Python), besides the comments above it. */
  docstring?: (node: Node) => Node | null;
  /** The name a declaration goes by in symbol paths, from its node and its own name (Go methods: `Server.Serve`). */
  qualify?: (node: Node, name: string) => string;
}

const field = (name: string) => (node: Node) => node.childForFieldName(name);
const childOfType = (node: Node, types: readonly string[]): Node | null => {
  for (const child of node.namedChildren) if (child && types.includes(child.type)) return child;
  return null;
};
const descendantOfType = (node: Node | null, types: readonly string[], depth = 4): Node | null => {
  if (!node) return null;
  if (types.includes(node.type)) return node;
  if (depth === 0) return null;
  for (const child of node.namedChildren) {
    const found = descendantOfType(child, types, depth - 1);
    if (found) return found;
  }
  return null;
};
/** The first unnamed child whose text is one of `keywords` (`class`, `interface`, `enum`…). */
const keyword = (node: Node, keywords: readonly string[]): string | undefined => {
  for (const child of node.children) if (child && !child.isNamed && keywords.includes(child.type)) return child.type;
  return undefined;
};

// ---- JavaScript / TypeScript -------------------------------------------------------------

const FUNCTION_VALUES = new Set(["arrow_function", "function_expression", "function", "generator_function"]);

/** `const x = () => …` is a function; any other `const`/`let`/`var` a variable. */
const jsVariableKind = (node: Node): SymbolKind => {
  const declarator = childOfType(node, ["variable_declarator"]);
  const value = declarator?.childForFieldName("value");
  return value && FUNCTION_VALUES.has(value.type) ? "function" : "variable";
};

/** `module.exports.load = function…`, `Store.prototype.get = (…) => …`: a function named by where it is assigned. */
const jsAssignedFunction = (node: Node): Node | null => {
  const assignment = node.namedChildren[0];
  if (assignment?.type !== "assignment_expression") return null;
  const left = assignment.childForFieldName("left");
  const right = assignment.childForFieldName("right");
  return left?.type === "member_expression" && right && FUNCTION_VALUES.has(right.type) ? left : null;
};

const JS_DECLARATIONS: LanguageSpec["declarations"] = {
  function_declaration: "function",
  generator_function_declaration: "function",
  function_signature: "function",
  class_declaration: "class",
  abstract_class_declaration: "class",
  interface_declaration: "interface",
  type_alias_declaration: "type",
  enum_declaration: "enum",
  internal_module: "module",
  module: "module",
  lexical_declaration: jsVariableKind,
  variable_declaration: jsVariableKind,
  method_definition: "method",
  method_signature: "method",
  abstract_method_signature: "method",
  public_field_definition: "field",
  field_definition: "field",
  property_signature: "field",
  expression_statement: (node) => (jsAssignedFunction(node) ? "function" : null),
};

const JS_WRAPPERS: LanguageSpec["wrappers"] = {
  export_statement: field("declaration"),
  ambient_declaration: (node) => node.namedChildren.find((c) => c !== null && c.type !== "comment") ?? null,
};

const jsName = (node: Node): Node | null => {
  if (node.type === "expression_statement") return jsAssignedFunction(node);
  if (node.type === "lexical_declaration" || node.type === "variable_declaration") {
    return childOfType(node, ["variable_declarator"])?.childForFieldName("name") ?? null;
  }
  return node.childForFieldName("name") ?? node.childForFieldName("property");
};

const JS_PREAMBLE = new Set(["comment", "decorator"]);

// ---- C / C++ -------------------------------------------------------------------------------

const C_NAME_TYPES = [
  "identifier",
  "field_identifier",
  "type_identifier",
  "qualified_identifier",
  "destructor_name",
  "operator_name",
  "template_function",
];

const C_DECLARATORS = [
  "function_declarator",
  "pointer_declarator",
  "reference_declarator",
  "init_declarator",
  "array_declarator",
  "parenthesized_declarator",
  "attributed_declarator",
];

/** Follows declarators (pointers, references, function declarators, initialisers) down to the name. */
const cDeclarator = (node: Node): { name: Node | null; isFunction: boolean } => {
  let current: Node | null = node.childForFieldName("declarator");
  let isFunction = false;
  for (let depth = 0; current && depth < 8; depth++) {
    if (C_NAME_TYPES.includes(current.type)) return { name: current, isFunction };
    if (current.type === "function_declarator") isFunction = true;
    current = current.childForFieldName("declarator") ?? childOfType(current, [...C_NAME_TYPES, ...C_DECLARATORS]);
  }
  return { name: null, isFunction };
};
const cDeclaratorName = (node: Node): Node | null => cDeclarator(node).name;
const cIsFunction = (node: Node): boolean => cDeclarator(node).isFunction;

const cName = (node: Node): Node | null => {
  switch (node.type) {
    case "function_definition":
    case "declaration":
    case "field_declaration":
    case "type_definition":
      return cDeclaratorName(node);
    default:
      return node.childForFieldName("name");
  }
};

/** Only `struct x { … }` with a body is a declaration of its own; `struct x;` and uses are not. */
const withBody =
  (kind: SymbolKind) =>
  (node: Node): SymbolKind | null =>
    node.childForFieldName("body") ? kind : null;

const C_DECLARATIONS: LanguageSpec["declarations"] = {
  function_definition: (node) => (cDeclaratorName(node)?.type === "qualified_identifier" ? "method" : "function"),
  declaration: (node) => (cIsFunction(node) ? "function" : "variable"),
  type_definition: "type",
  struct_specifier: withBody("struct"),
  union_specifier: withBody("struct"),
  enum_specifier: withBody("enum"),
  preproc_def: "macro",
  preproc_function_def: "macro",
};

const CPP_DECLARATIONS: LanguageSpec["declarations"] = {
  ...C_DECLARATIONS,
  class_specifier: withBody("class"),
  namespace_definition: "module",
  alias_declaration: "type",
  field_declaration: (node) => (cIsFunction(node) ? "method" : "field"),
  concept_definition: "type",
};

const C_TRANSPARENT = new Set(["preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif"]);

// ---- the table ------------------------------------------------------------------------------

const TYPESCRIPT_BASE = {
  declarations: JS_DECLARATIONS,
  wrappers: JS_WRAPPERS,
  preamble: JS_PREAMBLE,
  nameNode: jsName,
};

const SPECS: LanguageSpec[] = [
  // TypeScript proper, where `<T>x` is a cast; .tsx files are parsed by the TSX grammar, where it is JSX.
  { name: "typescript", grammar: "typescript", aliases: ["ts", "mts", "cts"], ...TYPESCRIPT_BASE },
  { name: "tsx", language: "typescript", grammar: "tsx", aliases: [], ...TYPESCRIPT_BASE },
  { name: "javascript", grammar: "javascript", aliases: ["js", "jsx", "mjs", "cjs", "node"], ...TYPESCRIPT_BASE },
  {
    name: "python",
    grammar: "python",
    aliases: ["py", "python3", "pyi"],
    declarations: {
      function_definition: "function",
      class_definition: "class",
      expression_statement: (node) => {
        const assignment = node.namedChildren[0];
        return assignment?.type === "assignment" && assignment.childForFieldName("left")?.type === "identifier" ? "variable" : null;
      },
    },
    wrappers: { decorated_definition: field("definition") },
    docstring: (node) => {
      const first = node.childForFieldName("body")?.namedChildren[0];
      return first?.type === "expression_statement" && first.namedChildren[0]?.type === "string" ? first.namedChildren[0] : null;
    },
    nameNode: (node) =>
      node.type === "expression_statement" ? (node.namedChildren[0]?.childForFieldName("left") ?? null) : node.childForFieldName("name"),
    preamble: new Set(["comment"]),
  },
  {
    name: "go",
    grammar: "go",
    aliases: ["golang"],
    declarations: {
      function_declaration: "function",
      method_declaration: "method",
      type_declaration: (node) => {
        const type = childOfType(node, ["type_spec", "type_alias"])?.childForFieldName("type")?.type;
        return type === "struct_type" ? "struct" : type === "interface_type" ? "interface" : "type";
      },
      var_declaration: "variable",
      const_declaration: "variable",
    },
    nameNode: (node) => {
      if (node.type === "type_declaration") return childOfType(node, ["type_spec", "type_alias"])?.childForFieldName("name") ?? null;
      if (node.type === "var_declaration" || node.type === "const_declaration") {
        return childOfType(node, ["var_spec", "const_spec"])?.childForFieldName("name") ?? null;
      }
      return node.childForFieldName("name");
    },
    qualify: (node, name) => {
      if (node.type !== "method_declaration") return name;
      const receiver = descendantOfType(node.childForFieldName("receiver"), ["type_identifier"], 5);
      return receiver ? `${receiver.text}.${name}` : name;
    },
    preamble: new Set(["comment"]),
  },
  {
    name: "rust",
    grammar: "rust",
    aliases: ["rs"],
    declarations: {
      function_item: "function",
      function_signature_item: "function",
      struct_item: "struct",
      union_item: "struct",
      enum_item: "enum",
      trait_item: "trait",
      impl_item: "impl",
      mod_item: "module",
      type_item: "type",
      const_item: "variable",
      static_item: "variable",
      macro_definition: "macro",
    },
    nameNode: (node) => (node.type === "impl_item" ? node.childForFieldName("type") : node.childForFieldName("name")),
    preamble: new Set(["line_comment", "block_comment", "attribute_item"]),
  },
  {
    name: "java",
    grammar: "java",
    aliases: [],
    declarations: {
      class_declaration: "class",
      record_declaration: "class",
      interface_declaration: "interface",
      annotation_type_declaration: "interface",
      enum_declaration: "enum",
      method_declaration: "method",
      constructor_declaration: "method",
      compact_constructor_declaration: "method",
      field_declaration: "field",
      constant_declaration: "field",
    },
    nameNode: (node) =>
      node.type === "field_declaration" || node.type === "constant_declaration"
        ? (node.childForFieldName("declarator")?.childForFieldName("name") ?? null)
        : node.childForFieldName("name"),
    transparent: new Set(["enum_body_declarations"]),
    preamble: new Set(["line_comment", "block_comment"]),
  },
  {
    name: "c",
    grammar: "c",
    aliases: ["h"],
    declarations: C_DECLARATIONS,
    nameNode: cName,
    transparent: C_TRANSPARENT,
    preamble: new Set(["comment"]),
  },
  {
    name: "cpp",
    grammar: "cpp",
    aliases: ["c++", "cc", "cxx", "hpp", "hh"],
    declarations: CPP_DECLARATIONS,
    wrappers: {
      template_declaration: (node) => node.namedChildren.find((c) => c !== null && c.type !== "template_parameter_list") ?? null,
    },
    nameNode: cName,
    body: (node) => (node.type === "linkage_specification" ? null : node.childForFieldName("body")),
    transparent: new Set([...C_TRANSPARENT, "linkage_specification", "declaration_list"]),
    preamble: new Set(["comment"]),
  },
  {
    name: "csharp",
    grammar: "c_sharp",
    aliases: ["c#", "cs"],
    declarations: {
      namespace_declaration: "module",
      file_scoped_namespace_declaration: "module",
      class_declaration: "class",
      record_declaration: "class",
      record_struct_declaration: "struct",
      struct_declaration: "struct",
      interface_declaration: "interface",
      enum_declaration: "enum",
      delegate_declaration: "type",
      method_declaration: "method",
      constructor_declaration: "method",
      destructor_declaration: "method",
      operator_declaration: "method",
      conversion_operator_declaration: "method",
      indexer_declaration: "method",
      property_declaration: "field",
      event_declaration: "field",
      field_declaration: "field",
      event_field_declaration: "field",
    },
    nameNode: (node) =>
      node.type === "field_declaration" || node.type === "event_field_declaration"
        ? (descendantOfType(childOfType(node, ["variable_declaration"]), ["variable_declarator"])?.namedChildren[0] ?? null)
        : node.childForFieldName("name"),
    preamble: new Set(["comment"]),
  },
  {
    name: "ruby",
    grammar: "ruby",
    aliases: ["rb"],
    declarations: {
      class: "class",
      module: "module",
      singleton_class: "class",
      method: "function",
      singleton_method: "method",
      assignment: (node) => (node.childForFieldName("left")?.type === "constant" ? "variable" : null),
    },
    nameNode: (node) =>
      node.type === "assignment"
        ? node.childForFieldName("left")
        : node.type === "singleton_class"
          ? node.childForFieldName("value")
          : node.childForFieldName("name"),
    preamble: new Set(["comment"]),
  },
  {
    name: "php",
    grammar: "php",
    aliases: [],
    declarations: {
      function_definition: "function",
      class_declaration: "class",
      interface_declaration: "interface",
      trait_declaration: "trait",
      enum_declaration: "enum",
      namespace_definition: (node) => (node.childForFieldName("body") ? "module" : null),
      method_declaration: "method",
      property_declaration: "field",
      const_declaration: "variable",
    },
    nameNode: (node) =>
      node.type === "property_declaration"
        ? (descendantOfType(node, ["variable_name"]) ?? null)
        : node.type === "const_declaration"
          ? (descendantOfType(childOfType(node, ["const_element"]), ["name"]) ?? null)
          : node.childForFieldName("name"),
    preamble: new Set(["comment"]),
  },
  {
    name: "kotlin",
    grammar: "kotlin",
    aliases: ["kt", "kts"],
    declarations: {
      class_declaration: (node) => (keyword(node, ["interface"]) ? "interface" : keyword(node, ["enum"]) ? "enum" : "class"),
      object_declaration: "class",
      companion_object: "class",
      function_declaration: "function",
      property_declaration: "variable",
      type_alias: "type",
    },
    nameNode: (node) =>
      node.type === "property_declaration"
        ? (descendantOfType(childOfType(node, ["variable_declaration", "multi_variable_declaration"]), ["simple_identifier"]) ?? null)
        : childOfType(node, ["type_identifier", "simple_identifier"]),
    body: (node) => childOfType(node, ["class_body", "enum_class_body"]),
    preamble: new Set(["line_comment", "multiline_comment", "comment"]),
  },
  {
    name: "swift",
    grammar: "swift",
    aliases: [],
    declarations: {
      class_declaration: (node) => {
        const kind = keyword(node, ["class", "struct", "enum", "extension", "actor"]);
        return kind === "struct" ? "struct" : kind === "enum" ? "enum" : kind === "extension" ? "impl" : "class";
      },
      protocol_declaration: "interface",
      function_declaration: "function",
      protocol_function_declaration: "function",
      init_declaration: "method",
      deinit_declaration: "method",
      subscript_declaration: "method",
      property_declaration: "variable",
      protocol_property_declaration: "field",
      typealias_declaration: "type",
    },
    nameNode: (node) => {
      if (node.type === "property_declaration" || node.type === "protocol_property_declaration") {
        return descendantOfType(node.childForFieldName("name") ?? childOfType(node, ["pattern"]), ["simple_identifier"]);
      }
      if (node.type === "init_declaration" || node.type === "deinit_declaration" || node.type === "subscript_declaration") {
        return node.children.find((c) => c !== null && !c.isNamed && ["init", "deinit", "subscript"].includes(c.type)) ?? null;
      }
      return node.childForFieldName("name");
    },
    preamble: new Set(["comment", "multiline_comment"]),
  },
  {
    name: "bash",
    grammar: "bash",
    aliases: ["shell", "sh", "zsh", "shellscript", "console"],
    declarations: { function_definition: "function" },
    preamble: new Set(["comment"]),
  },
];

const BY_NAME = new Map<string, LanguageSpec>();
for (const spec of SPECS) {
  BY_NAME.set(spec.name, spec);
  for (const alias of spec.aliases) BY_NAME.set(alias, spec);
}

/** Languages the code chunker parses with tree-sitter (canonical names); any other code is cut by line windows. */
export const CODE_LANGUAGES: readonly string[] = SPECS.map((s) => s.name);

/** The language a name, alias or Markdown fence tag stands for (`ts`, `C++`, `shell`…), or undefined. */
export function codeLanguage(name: string | undefined): string | undefined {
  return name === undefined ? undefined : BY_NAME.get(name.trim().toLowerCase())?.name;
}

export function specFor(name: string | undefined): LanguageSpec | undefined {
  return name === undefined ? undefined : BY_NAME.get(name.trim().toLowerCase());
}
