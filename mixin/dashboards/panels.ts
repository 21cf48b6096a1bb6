// Panel factories: every panel gets a title, a description, a unit, the $datasource and its
// PromQL targets the same way; each factory adds what its visualisation needs to be readable.

import { PanelBuilder as BarGaugeBuilder } from "@grafana/grafana-foundation-sdk/bargauge";
import type * as cog from "@grafana/grafana-foundation-sdk/cog";
import {
  BarGaugeDisplayMode,
  type BigValueColorMode,
  BigValueGraphMode,
  type DataSourceRef,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  SortOrder,
  TooltipDisplayMode,
  VizLegendOptionsBuilder,
  VizOrientation,
  VizTooltipOptionsBuilder,
} from "@grafana/grafana-foundation-sdk/common";
import {
  type DashboardLink,
  type DashboardLinkBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { PanelBuilder as StatBuilder } from "@grafana/grafana-foundation-sdk/stat";
import { PanelBuilder as StateTimelineBuilder } from "@grafana/grafana-foundation-sdk/statetimeline";
import { PanelBuilder as TimeSeriesBuilder } from "@grafana/grafana-foundation-sdk/timeseries";
import { PROMETHEUS, type Query, targets, yesNo } from "./common.js";

export interface PanelSpec {
  title: string;
  /** What the panel shows and how to read it (shown as the panel's info tooltip). */
  description: string;
  /** A Grafana unit id: "s", "short", "ops", "bool_yes_no"… */
  unit: string;
  /** Grid columns (of 24) and rows. */
  width: number;
  height: number;
  queries: Query[];
  /** Links to the runbooks of the alerts behind what the panel shows (common.ts runbooks). */
  runbooks?: DashboardLinkBuilder[];
}

/**
 * The colours of a stat or gauge's value: `base` below every step, then each step's colour
 * from its value up. Where an alert fires at a value, a step is there too.
 */
export interface Thresholds {
  base: string;
  steps: [value: number, color: string][];
}

/** A stat or a gauge says when its value is bad: thresholds are required. */
export interface ValueSpec extends PanelSpec {
  thresholds: Thresholds;
}

const thresholdsConfig = ({ base, steps }: Thresholds): ThresholdsConfigBuilder =>
  new ThresholdsConfigBuilder()
    .mode(ThresholdsMode.Absolute)
    .steps([{ value: null, color: base }, ...steps.map(([value, color]) => ({ value, color }))]);

/** The methods every SDK panel builder has in common. */
interface PanelBasics<T> {
  title(title: string): T;
  description(description: string): T;
  datasource(datasource: DataSourceRef): T;
  unit(unit: string): T;
  span(width: number): T;
  height(height: number): T;
  targets(targets: cog.Builder<cog.Dataquery>[]): T;
  links(links: cog.Builder<DashboardLink>[]): T;
}

export function basics<T extends PanelBasics<T>>(builder: T, spec: PanelSpec): T {
  const withLinks = spec.runbooks ? builder.links(spec.runbooks) : builder;
  return withLinks
    .title(spec.title)
    .description(spec.description)
    .datasource(PROMETHEUS)
    .unit(spec.unit)
    .span(spec.width)
    .height(spec.height)
    .targets(targets(spec.queries));
}

/** A visible legend under the graph (the SDK's default hides it). */
export const legend = (): VizLegendOptionsBuilder =>
  new VizLegendOptionsBuilder()
    .showLegend(true)
    .displayMode(LegendDisplayMode.List)
    .placement(LegendPlacement.Bottom);

/** Stats and bar gauges show the last value of each series. */
const lastValue = (): ReduceDataOptionsBuilder =>
  new ReduceDataOptionsBuilder().calcs(["lastNotNull"]).values(false);

/** Lines from zero, a legend, and a tooltip listing every series largest first. */
export const timeSeries = (spec: PanelSpec): TimeSeriesBuilder =>
  basics(new TimeSeriesBuilder(), spec)
    .min(0)
    .legend(legend())
    .tooltip(
      new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi).sort(SortOrder.Descending),
    );

export const stat = (
  spec: ValueSpec,
  color: BigValueColorMode,
  graph: BigValueGraphMode = BigValueGraphMode.None,
): StatBuilder =>
  basics(new StatBuilder(), spec)
    .colorMode(color)
    .graphMode(graph)
    .reduceOptions(lastValue())
    .thresholds(thresholdsConfig(spec.thresholds));

/** Horizontal bars, one per series, for comparing sources or nodes. */
export const barGauge = (spec: ValueSpec): BarGaugeBuilder =>
  basics(new BarGaugeBuilder(), spec)
    .thresholds(thresholdsConfig(spec.thresholds))
    .min(0)
    .orientation(VizOrientation.Horizontal)
    .displayMode(BarGaugeDisplayMode.Basic)
    .reduceOptions(lastValue());

/** 0/1 gauges over time as coloured bands: `no` in red, `yes` in green. */
export const stateTimeline = (spec: PanelSpec, no: string, yes: string): StateTimelineBuilder =>
  basics(new StateTimelineBuilder(), spec)
    .mappings(yesNo(no, yes))
    .mergeValues(true)
    .legend(legend());
