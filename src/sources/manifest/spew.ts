// go-spew's %#v (spew/format.go, github.com/davecgh/go-spew at the version every claimed
// kubelet pins) with the configuration the kubelet hashes static pods with: dump.ForHash's
// {SortKeys, SpewKeys, DisableMethods, DisablePointerAddresses, DisableCapacities} (Indent only
// matters to Dump). Every value is printed with its Go type in parentheses, except where spew
// clears the type ("ignoreNextType": slice elements, map keys and values, a pointee), strings
// raw, nil as <nil>, map keys in Go's string order.
//
// A Go value here is a plain tree: a struct is an object keyed by Go field name (an absent field
// is its zero value), a pointer its pointee (undefined: nil), a slice an array (undefined: nil),
// a map an object (undefined: nil), integers numbers or bigints.

import { compareGoStrings } from "../go_strings.js";
import type { JsonObject } from "../json_object.js";
import type { SpewType } from "./spew_schema.js";

class FormatState {
  private out = "";
  // Spew's one flag: set before a slice element, a map key or value and a pointee, cleared
  // by format once the type would have been printed. A nil pointer printed without its type
  // returns before it is cleared, as in spew.
  private ignoreNextType = false;

  text(): string {
    return this.out;
  }

  formatPtr(type: SpewType, value: unknown): void {
    const elem = type.elem as SpewType;
    if (isNil(value)) {
      // spew: `if v.IsNil() && (!showTypes || f.ignoreNextType)`: <nil>, the flag left as is.
      if (this.ignoreNextType) {
        this.out += "<nil>";
        return;
      }
      // With its type: the pointer type itself (no indirection was followed), then <nil>.
      this.out += `(${type.name})<nil>`;
      return;
    }
    if (elem.kind === "ptr") throw new Error(`spew: ${type.name}: a pointer to a pointer`);
    this.out += this.ignoreNextType ? "<*>" : `(*${elem.name})`;
    this.ignoreNextType = true;
    this.format(elem, value);
  }

  format(type: SpewType, value: unknown): void {
    if (type.kind === "ptr") {
      this.formatPtr(type, value);
      return;
    }
    if (!this.ignoreNextType) this.out += `(${type.name})`;
    this.ignoreNextType = false;
    switch (type.kind) {
      case "bool":
        this.out += value === true ? "true" : "false";
        return;
      case "string":
        this.out += typeof value === "string" ? value : "";
        return;
      case "slice":
        if (isNil(value)) {
          this.out += "<nil>";
          return;
        }
        this.elements(type, value as unknown[]);
        return;
      case "array":
        this.elements(type, (value as unknown[] | undefined) ?? []);
        return;
      case "map":
        if (isNil(value)) {
          this.out += "<nil>";
          return;
        }
        this.map(type, value as JsonObject);
        return;
      case "struct":
        this.struct(type, (value as JsonObject | undefined) ?? {});
        return;
      case "interface":
        if (isNil(value)) this.out += "<nil>";
        else throw new Error(`spew: ${type.name}: a non-nil interface`);
        return;
      default:
        if (!integerKinds.has(type.kind)) throw new Error(`spew: kind ${type.kind} is not ported`);
        this.out += String(value ?? 0);
    }
  }

  private elements(type: SpewType, values: readonly unknown[]): void {
    const elem = type.elem as SpewType;
    this.out += "[";
    values.forEach((v, i) => {
      if (i > 0) this.out += " ";
      this.ignoreNextType = true;
      this.format(elem, v);
    });
    this.out += "]";
  }

  private map(type: SpewType, map: JsonObject): void {
    const key = type.key as SpewType;
    const elem = type.elem as SpewType;
    // SortKeys: string kinds compare as Go strings (valueSortLess).
    if (key.kind !== "string") throw new Error(`spew: ${type.name}: map key kind ${key.kind}`);
    const keys = Object.keys(map).sort(compareGoStrings);
    this.out += "map[";
    keys.forEach((k, i) => {
      if (i > 0) this.out += " ";
      this.ignoreNextType = true;
      this.format(key, k);
      this.out += ":";
      this.ignoreNextType = true;
      this.format(elem, map[k]);
    });
    this.out += "]";
  }

  private struct(type: SpewType, object: JsonObject): void {
    this.out += "{";
    (type.fields ?? []).forEach((field, i) => {
      if (i > 0) this.out += " ";
      this.out += `${field.name}:`;
      this.format(field.type, object[field.name]);
    });
    this.out += "}";
  }
}

const integerKinds = new Set([
  "int",
  "int8",
  "int16",
  "int32",
  "int64",
  "uint",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
]);

const isNil = (value: unknown): boolean => value === undefined || value === null;

/** spew.ConfigState{...ForHash}.Sprintf("%#v", value) for a value of Go type `type`. */
export function spewForHash(type: SpewType, value: unknown): string {
  const state = new FormatState();
  state.format(type, value);
  return state.text();
}
