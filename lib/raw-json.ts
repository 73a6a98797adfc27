/** What a search answer says about its words, for counting zero-result and weak-result queries (search/public-search.ts). */
export interface SearchFacts {
  /** Only a looser pass (fewer words, other word forms) found the results. */
  looseMatch: boolean;
  /** False when the store had no search index to ask (nothing published yet). */
  indexed: boolean;
}

/** A handler result that is already JSON text: the router sends it as is (cached answers are kept serialised). */
export class RawJson {
  /** `total`: how many results the answer has, when it is a search answer; `search`: its facts, kept with the cached answer. */
  constructor(
    readonly json: string,
    readonly total?: number,
    readonly search?: SearchFacts,
  ) {}
}
