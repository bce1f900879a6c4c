// Part 1 of the suite (tests/suite/plan.ts).
import { importPart } from "./plan.ts";

await importPart(0);
