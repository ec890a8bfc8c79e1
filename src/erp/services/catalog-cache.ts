/**
 * What part lists and searches derive from the catalogue, kept between requests for one catalogue version, as
 * search servers keep theirs between commits: parts as the JSON text the API answers with (cards), the ids of
 * a page of results, and the capped match counts of paged lists.
 *
 * Measured at 100k parts (2 cores): reading a page's 20 rows and writing their JSON in SQLite took about half
 * of a part search, and counting a broad word's matches up to the cap took as long as the rest of a list page;
 * inside a busy server, where each request meets the rows with cold caches, both cost twice that. None of it
 * changes unless the catalogue does, so it is kept for the version a request reads; every write to parts or
 * suppliers moves the version (triggers of migration `006_catalog_version`, whichever connection or process
 * writes) and drops it all. A request that finds nothing kept walks the index as before.
 */
export class CatalogCache {
  private version = -1;
  /** Card JSON and its part's project, by part id; insertion order is eviction order. */
  private readonly cards = new Map<number, { projectId: string; json: string }>();
  /** Page ids and capped counts, by a key naming the project, filters, text and page. */
  private readonly answers = new Map<string, unknown>();

  constructor(private readonly capacity = 20_000) {}

  /** Whether what is kept belongs to `version`, moving on to it when it is newer. */
  private holds(version: number): boolean {
    if (version > this.version) {
      this.cards.clear();
      this.answers.clear();
      this.version = version;
    }
    // A request that read an older version than others since uses nothing they kept.
    return version === this.version;
  }

  /**
   * The JSON array of the cards of `ids`, in that order, at catalogue `version`. `render` gives the cards not
   * kept yet as `[id, json]`; a part it does not return (another project's, or gone) is left out.
   */
  async cardArray(
    ids: number[],
    projectId: string,
    version: number,
    render: (ids: number[]) => Promise<Array<[number, string]>>,
  ): Promise<string> {
    const keptFor = (id: number) => {
      const card = this.cards.get(id);
      return card?.projectId === projectId ? card.json : undefined;
    };
    const missing = new Set(this.holds(version) ? ids.filter((id) => keptFor(id) === undefined) : ids);
    const rendered = missing.size ? new Map(await render([...missing])) : undefined;
    const json: string[] = [];
    for (const id of ids) {
      const card = missing.has(id) ? rendered?.get(id) : keptFor(id);
      if (card !== undefined) json.push(card);
    }
    // Cards rendered after the version moved on belong to no version kept here.
    if (rendered && this.version === version) {
      for (const [id, card] of rendered) {
        evictOldest(this.cards, this.capacity);
        this.cards.set(id, { projectId, json: card });
      }
    }
    return `[${json.join(',')}]`;
  }

  /** The answer kept for `key` at `version`, or `compute()`'s (then kept). */
  async answer<T>(key: string, version: number, compute: () => Promise<T>): Promise<T> {
    const kept = this.holds(version) ? (this.answers.get(key) as T | undefined) : undefined;
    if (kept !== undefined) return kept;
    const answer = await compute();
    if (this.version === version) {
      evictOldest(this.answers, this.capacity);
      this.answers.set(key, answer);
    }
    return answer;
  }
}

function evictOldest<K, V>(map: Map<K, V>, capacity: number) {
  if (map.size >= capacity) map.delete(map.keys().next().value as K);
}
