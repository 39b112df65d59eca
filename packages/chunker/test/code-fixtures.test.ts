import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type Chunk, chunkCode, type SymbolKind } from "../src/index.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/code/", import.meta.url));

function read(file: string): string {
  return readFileSync(FIXTURES + file, "utf8");
}

/**
 * 1-based line of the first line equal to `needle` (trimmed), else of the first line containing
 * it, plus `delta`. Expected lines are read off the fixture text, never off the chunker's output.
 */
function lineOf(text: string, needle: string, delta = 0): number {
  const lines = text.split("\n");
  let index = lines.findIndex((l) => l.trim() === needle);
  if (index === -1) index = lines.findIndex((l) => l.includes(needle));
  if (index === -1) throw new Error(`fixture has no line with ${JSON.stringify(needle)}`);
  return index + 1 + delta;
}

function expectFaithful(text: string, chunks: Chunk[]): void {
  for (const c of chunks) expect(text.slice(c.start, c.end)).toBe(c.text);
  expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
}

/**
 * Every declaration's lines, keyed `symbol kind` (a Rust `impl Account` and `struct Account` share
 * a symbol), from chunks cut as small as possible, so nothing is packed together.
 */
async function outline(text: string, language: string) {
  const chunks = await chunkCode(text, { language, size: 10, overlap: 0 });
  expectFaithful(text, chunks);
  const spans = new Map<string, { start: number; end: number }>();
  for (const c of chunks) {
    expect(c.fallback).toBeUndefined();
    if (!c.symbol) continue;
    const key = `${c.symbol} ${c.symbolKind}`;
    const span = spans.get(key);
    if (!span) spans.set(key, { start: c.lineStart as number, end: c.lineEnd as number });
    else {
      span.start = Math.min(span.start, c.lineStart as number);
      span.end = Math.max(span.end, c.lineEnd as number);
    }
  }
  return spans;
}

/** [symbol path, kind, line its chunk starts on (doc comment, decorators included), line it ends on (leaves only)] */
type Expected = [symbol: string, kind: SymbolKind, start: [string, number?], end?: [string, number?]];

interface Fixture {
  file: string;
  language: string;
  declarations: Expected[];
  /** Names that only appear inside strings, comments or templates: never symbols. */
  fakes: string[];
  /** A container longer than 300 characters whose members must come out as chunks of their own at that size. */
  split: { container: string; members: string[] };
}

const FIXTURE_TABLE: Fixture[] = [
  {
    file: "payment-service.ts",
    language: "typescript",
    declarations: [
      ["MAX_RETRIES", "variable", ["/** How many times"], ["export const MAX_RETRIES = 3;"]],
      ["ChargeStatus", "type", ["export type ChargeStatus"], ["export type ChargeStatus"]],
      ["Charge", "interface", ["/** A charge as the gateway reports it. */"]],
      ["Charge.amountCents", "field", ["amountCents: number;"], ["amountCents: number;"]],
      ["Currency", "enum", ["export enum Currency {"], ['JPY = "jpy",', 1]],
      ["TEMPLATE", "variable", ["const TEMPLATE = `"], ["export function notReal() {", 3]],
      ["PaymentService", "class", ["* Charges customers and retries failed payments", -1]],
      ["PaymentService.attempts", "field", ["private readonly attempts"], ["private readonly attempts"]],
      ["PaymentService.constructor", "method", ["constructor(private readonly gateway"], ["constructor(private readonly gateway"]],
      ["PaymentService.charge", "method", ["/** Charges a customer once"], ["return { id, amountCents, status", 1]],
      ["PaymentService.retryCharge", "method", ["/** Retries a failed charge"], ["return this.charge(charge.id", 1]],
      ["PaymentService.refund", "method", ["refund(charge: Charge): void {"]],
      ["sleep", "function", ["export function sleep"], ["return new Promise((resolve)", 1]],
      ["formatAmount", "function", ["export const formatAmount"], ["(cents / 100).toFixed(2)"]],
      ["Billing", "module", ["export namespace Billing {"]],
      ["Billing.invoiceNumber", "function", ["export function invoiceNumber"]],
    ],
    fakes: ["notReal"],
    split: { container: "PaymentService", members: ["PaymentService.charge", "PaymentService.retryCharge", "PaymentService.refund"] },
  },
  {
    file: "invoice-list.tsx",
    language: "tsx",
    declarations: [
      ["InvoiceListProps", "interface", ["interface InvoiceListProps {"]],
      ["InvoiceList", "function", ["/** Lists charges and offers a retry button"], ["</ul>", 2]],
      ["EmptyState", "function", ["export const EmptyState"], ["export const EmptyState"]],
    ],
    fakes: [],
    split: { container: "InvoiceList", members: [] },
  },
  {
    file: "cart.js",
    language: "javascript",
    declarations: [
      ["TAX_RATE", "variable", ["const TAX_RATE = 0.19;"], ["const TAX_RATE = 0.19;"]],
      ["Cart", "class", ["* A shopping cart held in memory.", -1]],
      ["Cart.constructor", "method", ["constructor(owner) {"], ["this.items = [];", 1]],
      ["Cart.add", "method", ["/** Adds an item, merging quantities of the same SKU. */"], ["return this;", 1]],
      ["Cart.remove", "method", ["remove(sku) {"], ["this.items = this.items.filter", 1]],
      ["Cart.size", "method", ["get size() {"]],
      ["totalWithTax", "function", ["/** Total price with tax, in cents. */"], ["return Math.round(net", 1]],
      ["describe", "function", ["const describe = (cart)"], ["const describe = (cart)"]],
    ],
    fakes: ["commentedOut", "FakeCart"],
    split: { container: "Cart", members: ["Cart.add", "Cart.remove"] },
  },
  {
    file: "badge.jsx",
    language: "jsx",
    declarations: [
      ["StatusBadge", "function", ["/** A coloured badge for a charge status. */"], ["return <span style", 1]],
      ["Counter", "class", ["export class Counter extends React.Component {"]],
      ["Counter.state", "field", ["state = { count: 0 };"], ["state = { count: 0 };"]],
      ["Counter.increment", "field", ["increment = () =>"], ["increment = () =>"]],
      ["Counter.render", "method", ["render() {"]],
    ],
    fakes: [],
    split: { container: "Counter", members: [] },
  },
  {
    file: "billing.py",
    language: "python",
    declarations: [
      ["MAX_RETRIES", "variable", ["MAX_RETRIES = 3"], ["MAX_RETRIES = 3"]],
      ["SNIPPET", "variable", ['SNIPPET = """'], ["def not_a_function():", 2]],
      ["Invoice", "class", ["@dataclass"]],
      ["Invoice.total", "field", ["total: int"], ["total: int"]],
      ["Invoice.tax", "method", ["def tax(self, rate: float) -> int:"], ["return math.floor(self.total * rate)"]],
      ["Invoice.is_large", "method", ["@property"], ["return self.total > 100_000"]],
      ["Invoice.describe", "method", ["def describe(self) -> str:"], ['return f"invoice {self.number} of {self.total}"']],
      ["PaymentRetrier", "class", ["class PaymentRetrier:"]],
      ["PaymentRetrier.__init__", "method", ["def __init__(self, gateway"], ["self.max_retries = max_retries"]],
      ["PaymentRetrier.retry_charge", "method", ["async def retry_charge"], ["return False"]],
      ["settle", "function", ["def settle(invoice: Invoice) -> None:"], ['print("settled", invoice.total)']],
    ],
    fakes: ["not_a_function", "fake"],
    split: { container: "PaymentRetrier", members: ["PaymentRetrier.__init__", "PaymentRetrier.retry_charge"] },
  },
  {
    file: "server.go",
    language: "go",
    declarations: [
      ["ErrDeclined", "variable", ["// ErrDeclined is returned"], ["var ErrDeclined = errors.New"]],
      ["maxRetries", "variable", ["const maxRetries = 3"], ["const maxRetries = 3"]],
      ["Server", "struct", ["// Server handles payment requests."], ["retries int", 1]],
      ["Gateway", "interface", ["// Gateway is the payment provider."], ["Charge(customer string, cents int) error", 1]],
      ["NewServer", "function", ["// NewServer builds a server"], ["return &Server{", 1]],
      ["Server.RetryCharge", "method", ["// RetryCharge charges again"], ["return err", 4]],
      ["Server.ServeHTTP", "method", ["// ServeHTTP answers health checks."], ["w.Write(", 1]],
    ],
    fakes: ["NotAFunction"],
    split: { container: "Server", members: [] },
  },
  {
    file: "ledger.rs",
    language: "rust",
    declarations: [
      ["MAX_BALANCE", "variable", ["/// Largest balance an account may hold"], ["pub const MAX_BALANCE"]],
      ["Account", "struct", ["/// An account with a balance in cents."], ["pub balance: i64,", 1]],
      ["TransferError", "enum", ["/// Why a transfer failed."], ["UnknownAccount(u64),", 1]],
      ["Store", "trait", ["pub trait Store {"]],
      ["Ledger", "struct", ["pub struct Ledger {"], ["accounts: HashMap<u64, Account>,", 1]],
      ["Ledger.new", "method", ["/// An empty ledger."], ["Ledger { accounts: HashMap::new() }", 1]],
      ["Ledger.transfer", "method", ["/// Moves `cents` from one account to another."]],
      ["audit", "module", ["mod audit {"]],
      ["audit.log", "function", ["pub fn log(line: &str) {"]],
    ],
    fakes: ["not_a_function"],
    split: { container: "Ledger", members: ["Ledger.new", "Ledger.transfer"] },
  },
  {
    file: "OrderService.java",
    language: "java",
    declarations: [
      ["OrderService", "class", ["* Places and cancels orders.", -1]],
      ["OrderService.orders", "field", ["private final List<Order> orders"], ["private final List<Order> orders"]],
      ["OrderService.OrderService", "method", ["public OrderService() {"], ["public OrderService() {", 1]],
      ["OrderService.placeOrder", "method", ["/** Places an order and returns its id. */"], ["return order.id();", 1]],
      ["OrderService.cancel", "method", ["public boolean cancel(String id) {"], ["return orders.removeIf", 1]],
      ["OrderService.Order", "class", ["public record Order(String customer, int cents) {"]],
      ["OrderListener", "interface", ["interface OrderListener {"]],
      ["OrderState", "enum", ["enum OrderState {"], ["CANCELLED", 1]],
    ],
    fakes: ["fakeMethod"],
    split: { container: "OrderService", members: ["OrderService.placeOrder", "OrderService.cancel"] },
  },
  {
    file: "ring_buffer.c",
    language: "c",
    declarations: [
      ["RING_CAPACITY", "macro", ["#define RING_CAPACITY 256"], ["#define RING_CAPACITY 256"]],
      ["RingBuffer", "type", ["/** A ring buffer; `head` is the next byte to read. */"], ["} RingBuffer;"]],
      ["stats", "struct", ["struct stats {"], ["long writes;", 1]],
      ["ring_error", "enum", ["enum ring_error"], ["enum ring_error"]],
      ["BANNER", "variable", ["static const char *BANNER"], ["static const char *BANNER"]],
      ["ring_new", "function", ["/* Creates an empty ring buffer. */"], ["return ring;", 1]],
      ["ring_push", "function", ["/* Writes one byte; fails when the buffer is full. */"], ["return RING_OK;", 1]],
      ["ring_pop", "function", ["int ring_pop(RingBuffer *ring"], ["int ring_pop(RingBuffer *ring"]],
    ],
    fakes: ["fake_function"],
    split: { container: "RingBuffer", members: [] },
  },
  {
    file: "matrix.cpp",
    language: "cpp",
    declarations: [
      ["linalg", "module", ["namespace linalg {"]],
      ["linalg.Matrix", "class", ["/// A dense row-major matrix of doubles."]],
      ["linalg.Matrix.Matrix", "method", ["Matrix(size_t rows, size_t cols)"], ["Matrix(size_t rows, size_t cols)"]],
      ["linalg.Matrix.at", "method", ["/// Element access with bounds checking."], ["return data_[r * cols_ + c];", 1]],
      ["linalg.Matrix.multiply", "method", ["Matrix multiply(const Matrix& other) const;"]],
      ["linalg.clamp", "function", ["template <typename T>"], ["return value < low", 1]],
      ["linalg.Point", "struct", ["struct Point {"]],
    ],
    fakes: ["Fake"],
    split: { container: "linalg", members: ["linalg.Matrix", "linalg.Matrix.at", "linalg.clamp"] },
  },
  {
    file: "InventoryService.cs",
    language: "csharp",
    declarations: [
      ["Shop.Inventory", "module", ["namespace Shop.Inventory"]],
      ["Shop.Inventory.InventoryService", "class", ["/// <summary>Tracks stock levels per SKU.</summary>"]],
      ["Shop.Inventory.InventoryService._stock", "field", ["private readonly Dictionary<string, int> _stock"], ["_stock = new();"]],
      ["Shop.Inventory.InventoryService.Count", "field", ["public int Count { get; private set; }"], ["public int Count"]],
      ["Shop.Inventory.InventoryService.Add", "method", ["/// <summary>Adds stock for a SKU.</summary>"], ["Count += quantity;", 1]],
      ["Shop.Inventory.InventoryService.Available", "method", ["public int Available(string sku)"]],
      ["Shop.Inventory.IStockListener", "interface", ["public interface IStockListener"]],
      ["Shop.Inventory.StockLevel", "enum", ["public enum StockLevel"], ["public enum StockLevel"]],
      ["Shop.Inventory.Reservation", "struct", ["public struct Reservation"]],
      ["Shop.Inventory.Shipment", "class", ["public record Shipment"]],
    ],
    fakes: ["Fake"],
    split: {
      container: "Shop.Inventory",
      members: ["Shop.Inventory.InventoryService.Add", "Shop.Inventory.InventoryService.Available"],
    },
  },
  {
    file: "subscription.rb",
    language: "ruby",
    declarations: [
      ["Billing", "module", ["# Billing for recurring subscriptions."]],
      ["Billing.GRACE_DAYS", "variable", ["GRACE_DAYS = 3"], ["GRACE_DAYS = 3"]],
      ["Billing.Subscription", "class", ["# A customer's subscription to a plan."]],
      ["Billing.Subscription.initialize", "method", ["def initialize(plan, renews_on)"], ["@renews_on = renews_on", 1]],
      ["Billing.Subscription.renew!", "method", ["# Renews the subscription for another period."], ["self", 1]],
      ["Billing.Subscription.overdue?", "method", ["def overdue?(today = Date.today)"], ["today > @renews_on + GRACE_DAYS", 1]],
      ["Billing.Subscription.trial", "method", ["def self.trial(plan)"]],
      ["format_price", "function", ["def format_price(cents)"], ['format("%.2f", cents / 100.0)', 1]],
    ],
    fakes: ["fake_method"],
    split: { container: "Billing", members: ["Billing.Subscription.initialize", "Billing.Subscription.overdue?"] },
  },
  {
    file: "CartController.php",
    language: "php",
    declarations: [
      ["CartController", "class", ["* Handles cart requests.", -1]],
      ["CartController.MAX_ITEMS", "field", ["private const MAX_ITEMS = 50;"], ["private const MAX_ITEMS = 50;"]],
      ["CartController.__construct", "method", ["public function __construct"], ["public function __construct", 2]],
      ["CartController.add", "method", ["/** Adds an item to the cart. */"], ["return ['ok' => true];", 1]],
      ["CartController.clear", "method", ["public function clear(): void"]],
      ["CartRepository", "interface", ["interface CartRepository"]],
      ["CartRepository.find", "method", ["public function find(int $id): ?Cart;"]],
      ["HasTotals", "trait", ["trait HasTotals"]],
      ["format_cents", "function", ["function format_cents(int $cents): string"], ["return number_format($cents / 100, 2);", 1]],
    ],
    fakes: ["fake"],
    split: { container: "CartController", members: ["CartController.add", "CartController.clear"] },
  },
  {
    file: "WeatherRepository.kt",
    language: "kotlin",
    declarations: [
      ["CACHE_SIZE", "variable", ["/** Largest number of forecasts kept in memory. */"], ["const val CACHE_SIZE = 32"]],
      ["Forecast", "class", ["/** A forecast for one city. */"], ["data class Forecast("]],
      ["WeatherApi", "interface", ["interface WeatherApi {"]],
      ["WeatherApi.fetch", "method", ["suspend fun fetch(city: String): Forecast"]],
      ["WeatherRepository", "class", ["* Fetches forecasts and retries when the API fails.", -1]],
      ["WeatherRepository.forecast", "method", ["/** Returns a cached forecast or fetches a fresh one. */"], ["return cache[city]", 1]],
      ["WeatherRepository.fetchWithRetry", "method", ["private suspend fun fetchWithRetry"], ["return api.fetch(city)", 1]],
      ["WeatherRepository.clear", "method", ["fun clear() {"]],
      ["Units", "class", ["object Units {"]],
      ["Condition", "enum", ["enum class Condition"], ["enum class Condition"]],
      ["describe", "function", ["fun describe(f: Forecast)"], ["fun describe(f: Forecast)"]],
    ],
    fakes: ["fake"],
    split: { container: "WeatherRepository", members: ["WeatherRepository.forecast", "WeatherRepository.fetchWithRetry"] },
  },
  {
    file: "NoteStore.swift",
    language: "swift",
    declarations: [
      ["Note", "struct", ["/// A note with a title and a body."]],
      ["NoteStoring", "interface", ["protocol NoteStoring {"]],
      ["NoteStore", "class", ["/// Keeps notes in memory and on disk."]],
      ["NoteStore.notes", "field", ["private var notes: [UUID: Note]"], ["private var notes: [UUID: Note]"]],
      ["NoteStore.init", "method", ["init() {}"], ["init() {}"]],
      ["NoteStore.save", "method", ["/// Saves a note, replacing one with the same id."], ["notes[note.id] = note", 1]],
      ["NoteStore.search", "method", ["func search(_ text: String) -> [Note] {"]],
      ["SortOrder", "enum", ["enum SortOrder {"], ["case oldest", 1]],
      ["Note.preview", "field", ["var preview: String"]],
      ["makeNote", "function", ["func makeNote(title: String) -> Note {"], ['Note(id: UUID(), title: title, body: "")', 1]],
    ],
    fakes: ["fake"],
    split: { container: "NoteStore", members: ["NoteStore.save", "NoteStore.search"] },
  },
  {
    file: "deploy.sh",
    language: "bash",
    declarations: [
      ["log", "function", ["# Prints a message with a timestamp."], ['echo "[$(date +%H:%M:%S)] $*"', 1]],
      ["deploy", "function", ["# Copies the build and restarts the service"], ["return 1", 1]],
      ["rollback", "function", ["function rollback {"], ['echo "fake() { echo not a function; }"', 1]],
    ],
    fakes: ["fake"],
    split: { container: "deploy", members: [] },
  },
];

describe("chunkCode on real-looking fixtures", () => {
  for (const fixture of FIXTURE_TABLE) {
    describe(`${fixture.language} (${fixture.file})`, () => {
      const text = read(fixture.file);

      it("finds each declaration with its symbol path, kind and lines, comments and decorators included", async () => {
        const spans = await outline(text, fixture.language);
        for (const [symbol, kind, start, end] of fixture.declarations) {
          const span = spans.get(`${symbol} ${kind}`);
          expect(span, `${symbol} ${kind} in ${[...spans.keys()].join(", ")}`).toBeDefined();
          expect(span?.start, `${symbol} starts`).toBe(lineOf(text, start[0], start[1]));
          if (end) expect(span?.end, `${symbol} ends`).toBe(lineOf(text, end[0], end[1]));
        }
      });

      it("never takes a declaration-like line in a string or comment for a declaration", async () => {
        const chunks = await chunkCode(text, { language: fixture.language, size: 10, overlap: 0 });
        const names = chunks.flatMap((c) => (c.symbol ? c.symbol.split(".") : []));
        for (const fake of fixture.fakes) expect(names).not.toContain(fake);
      });

      it("packs and splits at a realistic size, every chunk labelled and within the size unless cut by lines", async () => {
        const chunks = await chunkCode(text, { language: fixture.language, size: 300, overlap: 30 });
        expectFaithful(text, chunks);
        for (const c of chunks) {
          expect(c.language).toBe(
            ({ jsx: "javascript", tsx: "typescript" } as Record<string, string>)[fixture.language] ?? fixture.language,
          );
          expect(c.text.length).toBeLessThanOrEqual(300);
          expect(c.lineStart).toBe(text.slice(0, c.start).split("\n").length);
          expect(c.lineEnd).toBe(text.slice(0, c.end).split("\n").length);
        }
        // A container too long for one chunk is cut at its members: they spread over several chunks, inside its path.
        if (fixture.split.members.length > 0) {
          const inside = chunks.filter((c) => c.symbol?.startsWith(`${fixture.split.container}.`) || c.symbol === fixture.split.container);
          expect(inside.length).toBeGreaterThanOrEqual(2);
        }
        for (const member of fixture.split.members) {
          const holder = chunks.find((c) => c.symbol === member || c.symbols?.some((s) => s.symbol === member));
          expect(holder, member).toBeDefined();
          expect(holder?.headingPath?.length ?? 0, member).toBeGreaterThanOrEqual(fixture.split.container.split(".").length);
        }
        // The whole file is covered: every non-blank line is in some chunk.
        const covered = new Set(
          chunks.flatMap((c) =>
            Array.from({ length: (c.lineEnd as number) - (c.lineStart as number) + 1 }, (_, i) => (c.lineStart as number) + i),
          ),
        );
        text.split("\n").forEach((line, i) => {
          if (line.trim() !== "") expect(covered.has(i + 1), `line ${i + 1}: ${line}`).toBe(true);
        });
      });
    });
  }
});
