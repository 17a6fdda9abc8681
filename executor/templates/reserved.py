"""Names that belong to a language, not to the project: never turned into placeholders.

A project whose entity is `Key` also writes `except KeyError:`; templating that as
`{{EntityName}}Error` renders a NameError for any other entity, which the round trip
with the defaults cannot see. The set is the union for the languages the project uses,
applied to every file alike, so an identifier is treated the same everywhere (a module
`items.py` and its `import items` stay in step). What each language reserves:
docs/template-create.md, "Placeholders".
"""

from __future__ import annotations

import ast
import builtins
import keyword
import sys
import warnings
from collections.abc import Iterable

_BUILTIN_TYPES = (
    object, type, BaseException, str, bytes, bytearray, int, float, complex, bool, list,
    tuple, dict, set, frozenset, range, slice, memoryview,
)  # fmt: skip

PYTHON: frozenset[str] = frozenset(
    {
        *keyword.kwlist,
        *keyword.softkwlist,
        *dir(builtins),
        *sys.stdlib_module_names,
        *(name for t in _BUILTIN_TYPES for name in dir(t)),
    }
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


CSHARP: frozenset[str] = _words(
    """
    abstract as base bool break byte case catch char checked class const continue decimal
    default delegate do double else enum event explicit extern false finally fixed float for
    foreach goto if implicit in int interface internal is lock long namespace new null
    object operator out override params private protected public readonly ref return sbyte
    sealed short sizeof stackalloc static string struct switch this throw true try typeof
    uint ulong unchecked unsafe ushort using virtual void volatile while add and alias
    ascending args async await by descending dynamic equals file from get global group init
    into join let managed nameof nint not notnull nuint on or orderby partial record remove
    required scoped select set unmanaged value var when where with yield
    Object String Boolean Byte Char Int16 Int32 Int64 UInt16 UInt32 UInt64 Single Double
    Decimal DateTime DateTimeOffset DateOnly TimeOnly TimeSpan Guid Uri Version Type Enum
    Array Tuple ValueTuple Nullable Lazy Span ReadOnlySpan Memory ReadOnlyMemory Task
    ValueTask Action Func Predicate Comparison Converter EventArgs EventHandler Delegate
    Attribute Exception SystemException ArgumentException ArgumentNullException
    ArgumentOutOfRangeException InvalidOperationException NotImplementedException
    NotSupportedException KeyNotFoundException NullReferenceException
    IndexOutOfRangeException FormatException TimeoutException OperationCanceledException
    TaskCanceledException ObjectDisposedException UnauthorizedAccessException
    IOException FileNotFoundException DirectoryNotFoundException HttpRequestException
    AggregateException ApplicationException InvalidCastException OverflowException
    DivideByZeroException List Dictionary HashSet SortedSet SortedDictionary Queue Stack
    LinkedList ConcurrentDictionary ConcurrentQueue ObservableCollection ReadOnlyCollection
    Collection KeyValuePair IEnumerable IEnumerator IList ICollection IDictionary ISet
    IReadOnlyList IReadOnlyCollection IReadOnlyDictionary IQueryable IComparable IComparer
    IEquatable IEqualityComparer IDisposable IAsyncDisposable IAsyncEnumerable ICloneable
    IFormattable IProgress INotifyPropertyChanged INotifyCollectionChanged ICommand
    PropertyChangedEventArgs PropertyChangedEventHandler CancellationToken
    CancellationTokenSource Console Math Convert Environment Path File Directory Stream
    MemoryStream FileStream StreamReader StreamWriter TextReader TextWriter StringBuilder
    Encoding Regex Match Thread ThreadPool Monitor Interlocked Timer Stopwatch Random GC
    Activator Assembly Debug Trace HttpClient HttpResponseMessage JsonSerializer
    ILogger IServiceProvider IServiceCollection IConfiguration IHost DbContext DbSet
    Controller ControllerBase IActionResult ActionResult
    """
)

TYPESCRIPT: frozenset[str] = _words(
    """
    break case catch class const continue debugger default delete do else enum export
    extends false finally for function if import in instanceof new null return super switch
    this throw true try typeof var void while with yield let static implements interface
    package private protected public await async as any boolean number string symbol type
    declare module namespace readonly keyof infer never unknown abstract constructor get set
    of is asserts satisfies accessor out override require global undefined arguments
    Object Function Array Number String Boolean Symbol BigInt Math Date RegExp Error
    TypeError RangeError SyntaxError ReferenceError EvalError URIError AggregateError JSON
    Promise Map Set WeakMap WeakSet WeakRef Proxy Reflect Intl ArrayBuffer DataView
    Int8Array Uint8Array Int16Array Uint16Array Int32Array Uint32Array Float32Array
    Float64Array Iterator Iterable AsyncIterator AsyncIterable Generator console window
    document globalThis process module exports fetch Request Response Headers URL
    URLSearchParams FormData Blob File FileReader Event EventTarget CustomEvent Element
    HTMLElement Node Document Window Storage localStorage sessionStorage navigator location
    history setTimeout setInterval clearTimeout clearInterval queueMicrotask structuredClone
    Record Partial Required Readonly Pick Omit Exclude Extract NonNullable ReturnType
    Parameters InstanceType Awaited ReadonlyArray PromiseLike ArrayLike PropertyKey
    React Fragment Component PureComponent StrictMode Suspense Children ReactNode
    ReactElement useState useEffect useContext useReducer useRef useMemo useCallback
    useLayoutEffect useId useTransition useDeferredValue useSyncExternalStore
    useImperativeHandle useDebugValue useInsertionEffect useOptimistic useActionState
    useFormStatus createContext forwardRef memo lazy
    """
)

_BY_LANGUAGE: dict[str, frozenset[str]] = {
    "Python": PYTHON,
    "C#": CSHARP,
    "TypeScript": TYPESCRIPT,
    "JavaScript": TYPESCRIPT,
}


def is_stdlib(module: str | None) -> bool:
    """Whether `module` (dotted) is of the standard library."""
    return module is not None and module.split(".")[0] in sys.stdlib_module_names


def python_parse(text: str) -> ast.Module | None:
    """The module's syntax tree, None when it is not valid Python (warnings about
    escapes and the like are the project's business, not ours)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError):
            return None


def python_stdlib_names(text: str) -> set[str]:
    """Names a Python module takes from the standard library: imported from it
    (`from dataclasses import field`) or read off an imported module of it
    (`datetime.date`, `os.path.join`)."""
    tree = python_parse(text)
    if tree is None:
        return set()
    names: set[str] = set()
    modules: set[str] = set()  # local names bound to a standard-library module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and is_stdlib(node.module):
            names.update(a.name for a in node.names if a.name != "*")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if is_stdlib(a.name):
                    names.update(a.name.split("."))
                    modules.add(a.asname or a.name.split(".")[0])
    for node in ast.walk(tree):
        chain: list[str] = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if chain and isinstance(node, ast.Name) and node.id in modules:
            names.update(chain)
    return names


def reserved_names(languages: Iterable[str], python_sources: Iterable[str] = ()) -> frozenset[str]:
    """The identifiers no placeholder may replace in a project written in `languages`
    (Python: plus what `python_sources` take from the standard library)."""
    wanted = set(languages)
    out: set[str] = set()
    for language in wanted:
        out |= _BY_LANGUAGE.get(language, frozenset())
    if "Python" in wanted:
        for text in python_sources:
            out |= python_stdlib_names(text)
    return frozenset(out)
