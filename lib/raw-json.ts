/** A handler result that is already JSON text: the router sends it as is (cached answers are kept serialised). */
export class RawJson {
  /** `total`: how many results the answer has, when it is a search answer. */
  constructor(
    readonly json: string,
    readonly total?: number,
  ) {}
}
