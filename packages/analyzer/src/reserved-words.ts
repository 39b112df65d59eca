/**
 * Reserved words (keywords, literals, `this`/`self`, primitive type names) of the languages the
 * code chunker parses, by the language names chunks report. In a chunk of code they are syntax,
 * not what the code is about, and they are everywhere: `return`, `const`, `import` or Go's `error`
 * would match half the chunks of a code base for a question that merely uses the word. So a
 * code chunk's text is indexed without them (see `terms`); prose, comments' other words,
 * identifiers that contain them (`returnValue`, `importFile`) and property names (`node.type`)
 * keep their words. Words with a common meaning that are only contextual keywords (`get`, `set`,
 * `type`, `module`, Ruby's `retry`) are not listed.
 */
const JS =
  "break case catch class const continue debugger default delete do else export extends finally for function if import in " +
  "instanceof new return super switch this throw try typeof var void while with yield let static await async null true false " +
  "undefined of as from require";
const TS = `${JS} enum implements interface package private protected public declare readonly abstract keyof infer is satisfies namespace string number boolean any unknown never bigint`;
const C =
  "auto break case char const continue default do double else enum extern float for goto if inline int long register restrict " +
  "return short signed sizeof static struct switch typedef union unsigned void volatile while NULL true false bool include define " +
  "ifdef ifndef endif undef pragma";
const CPP =
  `${C} alignas alignof and catch class constexpr const_cast decltype delete dynamic_cast explicit export friend mutable ` +
  "namespace new noexcept not nullptr operator or private protected public reinterpret_cast static_assert static_cast template " +
  "this throw try typeid typename using virtual wchar_t override final";

const WORDS: Record<string, string> = {
  javascript: JS,
  typescript: TS,
  python:
    "False None True and as assert async await break class continue def del elif else except finally for from global if import " +
    "in is lambda nonlocal not or pass raise return try while with yield self cls",
  go:
    "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return " +
    "select struct switch type var nil true false iota bool byte complex64 complex128 error float32 float64 int int8 int16 int32 " +
    "int64 rune string uint uint8 uint16 uint32 uint64 uintptr any",
  rust:
    "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref " +
    "return self Self static struct super trait true type unsafe use where while i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 " +
    "usize f32 f64 bool char str",
  java:
    "abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally " +
    "float for goto if implements import instanceof int interface long native new package private protected public return short " +
    "static strictfp super switch synchronized this throw throws transient try void volatile while true false null var record yield",
  c: C,
  cpp: CPP,
  csharp:
    "abstract as base bool break byte case catch char checked class const continue decimal default delegate do double else enum " +
    "event explicit extern false finally fixed float for foreach goto if implicit in int interface internal is lock long namespace " +
    "new null object operator out override params private protected public readonly ref return sbyte sealed short sizeof stackalloc " +
    "static string struct switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while var " +
    "async await",
  ruby:
    "alias and begin break case class def defined do else elsif end ensure false for if in module next nil not or redo rescue " +
    "return self super then true undef unless until when while yield require attr_reader attr_accessor attr_writer",
  php:
    "abstract and array as break callable case catch class clone const continue declare default do echo else elseif empty " +
    "enddeclare endfor endforeach endif endswitch endwhile extends final finally fn for foreach function global goto if implements " +
    "include instanceof insteadof interface isset list match namespace new or print private protected public readonly require " +
    "return static switch throw trait try unset use var while xor yield null true false this self parent",
  kotlin:
    "as break class continue do else false for fun if in interface is null object package return super this throw true try " +
    "typealias typeof val var when while by constructor companion data enum import init internal lateinit open override private " +
    "protected public sealed suspend vararg",
  swift:
    "associatedtype class deinit enum extension fileprivate func import init inout internal let open operator private protocol " +
    "public rethrows static struct subscript typealias var break case continue default defer do else fallthrough for guard if in " +
    "repeat return switch where while as catch false is nil super self Self throw throws true try async await mutating override " +
    "final weak lazy",
  bash: "if then else elif fi case esac for while until do done in function select local export readonly return echo exit",
};

const SETS = new Map(Object.entries(WORDS).map(([language, words]) => [language, new Set(words.split(" "))]));

/** The reserved words of a language (as chunks name it), or undefined for prose and unknown languages. */
export function reservedWords(language: string | null | undefined): ReadonlySet<string> | undefined {
  return language ? SETS.get(language) : undefined;
}
