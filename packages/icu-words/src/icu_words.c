/*
 * ICU's word boundaries for docdb's analyzer, from the ICU inside the Node.js process itself (the
 * library and data Intl.Segmenter uses), without an object and a string per segment.
 *
 * Node.js links ICU statically and exports its symbols, so this addon declares the few it calls
 * by their linker names (Itanium C++ ABI: a member function takes `this` first) rather than
 * compiling against ICU's headers, which Node does not ship. The names carry ICU's major
 * version, which binding.gyp takes from the Node that builds the addon.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>

#define DOCDB_STR2(x) #x
#define DOCDB_STR(x) DOCDB_STR2(x)
#define ICU_V DOCDB_STR(DOCDB_ICU_MAJOR)
#ifdef __APPLE__
#define SYM(name) "_" name
#else
#define SYM(name) name
#endif

typedef struct UText UText;
typedef int UErrorCode; /* U_ZERO_ERROR is 0; failures are > 0 */

extern const void* icu_locale_japanese(void) __asm__(SYM("_ZN6icu_" ICU_V "6Locale11getJapaneseEv"));
extern void* icu_word_instance(const void* locale, UErrorCode* status)
    __asm__(SYM("_ZN6icu_" ICU_V "13BreakIterator18createWordInstanceERKNS_6LocaleER10UErrorCode"));
extern void icu_iterator_delete(void* self) __asm__(SYM("_ZN6icu_" ICU_V "22RuleBasedBreakIteratorD0Ev"));
extern void icu_set_text(void* self, UText* text, UErrorCode* status)
    __asm__(SYM("_ZN6icu_" ICU_V "22RuleBasedBreakIterator7setTextEP5UTextR10UErrorCode"));
extern int32_t icu_first(void* self) __asm__(SYM("_ZN6icu_" ICU_V "22RuleBasedBreakIterator5firstEv"));
extern int32_t icu_next(void* self) __asm__(SYM("_ZN6icu_" ICU_V "22RuleBasedBreakIterator4nextEv"));
extern int32_t icu_rule_status(const void* self) __asm__(SYM("_ZNK6icu_" ICU_V "22RuleBasedBreakIterator13getRuleStatusEv"));
extern UText* icu_open_uchars(UText* text, const uint16_t* chars, int64_t length, UErrorCode* status)
    __asm__(SYM("utext_openUChars_" ICU_V));
extern UText* icu_close_text(UText* text) __asm__(SYM("utext_close_" ICU_V));

/* UBRK_WORD_NUMBER (100) up to UBRK_WORD_IDEO_LIMIT (500): what Intl.Segmenter calls word-like. */
#define WORD_STATUS_FROM 100
#define WORD_STATUS_TO 500

/* One per Node environment (the main thread and each worker has its own). */
typedef struct {
  void* iterator;
  UText* text;
  uint16_t* chars;
  size_t capacity;
} State;

static void free_state(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  State* state = (State*)data;
  if (state->text) icu_close_text(state->text);
  if (state->iterator) icu_iterator_delete(state->iterator);
  free(state->chars);
  free(state);
}

static napi_value fail(napi_env env, const char* message) {
  napi_throw_error(env, "DOCDB_ICU_WORDS", message);
  return NULL;
}

/*
 * words(text: string, out: Int32Array): number. Writes the start and end offset of each
 * word-like segment of `text` into `out`, in order, and returns how many numbers it wrote.
 * `out` must hold 2 * text.length numbers (no text has more words than characters).
 */
static napi_value words(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) return fail(env, "words(text, out) takes two arguments");
  State* state = NULL;
  if (napi_get_instance_data(env, (void**)&state) != napi_ok || state == NULL) return fail(env, "the addon is not initialised");
  size_t length = 0;
  if (napi_get_value_string_utf16(env, argv[0], NULL, 0, &length) != napi_ok) return fail(env, "words(): the text must be a string");
  bool typed = false;
  napi_is_typedarray(env, argv[1], &typed);
  if (!typed) return fail(env, "words(): out must be an Int32Array");
  napi_typedarray_type type;
  size_t slots = 0;
  void* data = NULL;
  napi_get_typedarray_info(env, argv[1], &type, &slots, &data, NULL, NULL);
  if (type != napi_int32_array) return fail(env, "words(): out must be an Int32Array");
  if (slots < 2 * length) return fail(env, "words(): out must hold 2 * text.length numbers");
  if (length + 1 > state->capacity) {
    size_t capacity = (length + 1) * 2;
    uint16_t* chars = (uint16_t*)realloc(state->chars, capacity * sizeof(uint16_t));
    if (chars == NULL) return fail(env, "words(): out of memory");
    state->chars = chars;
    state->capacity = capacity;
  }
  napi_get_value_string_utf16(env, argv[0], (char16_t*)state->chars, state->capacity, &length);
  UErrorCode status = 0;
  state->text = icu_open_uchars(state->text, state->chars, (int64_t)length, &status);
  if (status > 0) return fail(env, "words(): ICU could not open the text");
  icu_set_text(state->iterator, state->text, &status);
  if (status > 0) return fail(env, "words(): ICU could not set the text");
  int32_t* out = (int32_t*)data;
  int32_t count = 0;
  int32_t start = icu_first(state->iterator);
  for (int32_t end = icu_next(state->iterator); end >= 0; start = end, end = icu_next(state->iterator)) {
    int32_t rule = icu_rule_status(state->iterator);
    if (rule >= WORD_STATUS_FROM && rule < WORD_STATUS_TO) {
      out[count++] = start;
      out[count++] = end;
    }
  }
  napi_value result;
  napi_create_int32(env, count, &result);
  return result;
}

NAPI_MODULE_INIT() {
  State* state = (State*)calloc(1, sizeof(State));
  if (state == NULL) return fail(env, "out of memory");
  UErrorCode status = 0;
  state->iterator = icu_word_instance(icu_locale_japanese(), &status);
  if (status > 0 || state->iterator == NULL) {
    free(state);
    return fail(env, "ICU could not make a Japanese word break iterator");
  }
  napi_set_instance_data(env, state, free_state, NULL);
  napi_value fn;
  napi_create_function(env, "words", NAPI_AUTO_LENGTH, words, NULL, &fn);
  napi_set_named_property(env, exports, "words", fn);
  napi_value version;
  napi_create_string_utf8(env, ICU_V, NAPI_AUTO_LENGTH, &version);
  napi_set_named_property(env, exports, "icuMajor", version);
  return exports;
}
