/**
 * Who a write may name as its requester (`x-requester-person`, API.md 5.1): `create` accepts 0 (a
 * person registering themselves), `update` needs an existing person's id. Write routes state theirs;
 * lib/http reads the header by it and lib/docs describes it.
 */
export type RequesterRule = 'create' | 'update';
