// SPEC §10 "Doors: the APIs a client speaks": what a door is to the relay's route table. A door
// answers the requests of its routes (null for any other path) and names them, for the 404 that
// lists every route. Adding a door is a folder of doors/ and one line of create-relay.ts's table.

/** One door of the relay (or a route of the relay's own): its routes, and its answer. */
export interface Door<E> {
  /** Its routes as the 404 of an unknown path names them (`"POST /v1/stream"`). */
  readonly routes: readonly string[];
  /** The answer to a request of one of its routes; null for any other path. */
  answer(request: Request, env: E, url: URL): Promise<Response | null>;
}
