// The names of the collection tools, apart from their definitions: the server follows the
// collections from start-up but loads the tools' schemas only once a collection exists.

export const COLLECTION_TOOL_PREFIX = "search_";
export const LIST_COLLECTIONS_TOOL = "list_collections";

export function collectionToolName(collection: string): string {
  return `${COLLECTION_TOOL_PREFIX}${collection}`;
}
