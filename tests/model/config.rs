//! Random chains of both codecs, for the `model` test.

use serde_json::{Value as Json, json};

use crate::values::{Random, element, same_number, scalar};
use zarrs_scale_offset_cast_reference::cast::CastModel;
use zarrs_scale_offset_cast_reference::scale_offset::ScaleOffsetModel;
use zarrs_scale_offset_cast_reference::{
    OutOfRangeMode, RefFault, RefValue, RoundingMode, TYPES, decode, is_integer,
};

/// One codec of a chain, as the model computes it.
pub(crate) enum Step {
    ScaleOffset(ScaleOffsetModel),
    Cast(CastModel),
}

impl Step {
    /// The encode by the specification alone.
    pub(crate) fn encode(&self, x: RefValue) -> Result<RefValue, RefFault> {
        match self {
            Self::ScaleOffset(model) => model.encode_unchecked(x),
            Self::Cast(model) => model.encode_unchecked(x),
        }
    }

    pub(crate) fn decode(&self, y: RefValue) -> Result<RefValue, RefFault> {
        match self {
            Self::ScaleOffset(model) => model.decode(y),
            Self::Cast(model) => model.decode(y),
        }
    }

    /// Whether the specification requires the fill value to survive the round trip by value.
    pub(crate) fn fill_must_survive(&self) -> bool {
        matches!(self, Self::Cast(_))
    }
}

/// A random chain: its codec metadata and its model.
pub(crate) struct Config {
    pub(crate) codecs: Vec<Json>,
    pub(crate) steps: Vec<Step>,
    /// The data type the last codec encodes to.
    pub(crate) stored: &'static str,
}

impl Config {
    /// The encode of `x` through every codec.
    pub(crate) fn encode(&self, x: RefValue) -> Result<RefValue, RefFault> {
        self.steps.iter().try_fold(x, |x, step| step.encode(x))
    }

    /// The decode of `y` through every codec, last codec first.
    pub(crate) fn decode(&self, y: RefValue) -> Result<RefValue, RefFault> {
        self.steps
            .iter()
            .rev()
            .try_fold(y, |y, step| step.decode(y))
    }
}

fn usable_parameter(value: RefValue, scale: bool) -> bool {
    match value {
        RefValue::Int(i) => !scale || i != 0,
        RefValue::Float(x) => !scale || x != 0.0,
        _ => false,
    }
}

/// A random `scale_offset` on `t`.
fn scale_offset(random: &mut Random, t: &'static str, gentle: bool) -> (Json, Step) {
    let mut configuration = serde_json::Map::new();
    let mut parameters = [None, None];
    for (i, key) in ["offset", "scale"].into_iter().enumerate() {
        let bits = element(random, t, gentle);
        if random.chance(80) && usable_parameter(decode(t, bits), i == 1) {
            configuration.insert(key.to_string(), scalar(t, bits));
            parameters[i] = Some(decode(t, bits));
        }
    }
    let json = json!({"name": "scale_offset", "configuration": configuration});
    (
        json,
        Step::ScaleOffset(ScaleOffsetModel::new(t, parameters[0], parameters[1])),
    )
}

/// A random `cast_value` from `from` to `to`.
fn cast_value(
    random: &mut Random,
    from: &'static str,
    to: &'static str,
    gentle: bool,
) -> (Json, Step) {
    let rounding = random.pick(&[
        (RoundingMode::NearestEven, "nearest-even"),
        (RoundingMode::NearestAway, "nearest-away"),
        (RoundingMode::TowardsZero, "towards-zero"),
        (RoundingMode::TowardsPositive, "towards-positive"),
        (RoundingMode::TowardsNegative, "towards-negative"),
    ]);
    let mut modes = vec![(None, None), (Some(OutOfRangeMode::Clamp), Some("clamp"))];
    if is_integer(to) {
        modes.push((Some(OutOfRangeMode::Wrap), Some("wrap")));
    }
    let (oor, oor_name) = if gentle {
        modes[1 + random.below(modes.len() - 1)]
    } else {
        random.pick(&modes)
    };
    let mut configuration = json!({"data_type": to, "rounding": rounding.1});
    if let Some(name) = oor_name {
        configuration["out_of_range"] = json!(name);
    }
    let mut maps = [Vec::new(), Vec::new()];
    let mut json_maps = [Vec::new(), Vec::new()];
    for (direction, (key_type, value_type)) in [(from, to), (to, from)].into_iter().enumerate() {
        for _ in 0..if gentle { 0 } else { random.below(3) } {
            let (key, value) = (
                element(random, key_type, false),
                element(random, value_type, false),
            );
            json_maps[direction].push(json!([scalar(key_type, key), scalar(value_type, value)]));
            let key = decode(key_type, key);
            // The first occurrence of a key wins; keys match numerically (-0 = +0).
            let same = |k: &(RefValue, RefValue)| same_number(k.0, key);
            if !maps[direction].iter().any(same) {
                maps[direction].push((key, decode(value_type, value)));
            }
        }
    }
    if !json_maps[0].is_empty() || !json_maps[1].is_empty() {
        configuration["scalar_map"] = json!({"encode": json_maps[0], "decode": json_maps[1]});
    }
    let [encode, decode] = maps;
    let cast = CastModel::new(from, to, rounding.0, oor).with_maps(encode, decode);
    (
        json!({"name": "cast_value", "configuration": configuration}),
        Step::Cast(cast),
    )
}

/// A random chain from `from` ending in a cast to `to` (usually): `scale_offset` and
/// `cast_value` codecs, one to four of them, sometimes through a third data type. `gentle`
/// chains use moderate parameters and an out-of-range mode, so that most of their writes succeed.
pub(crate) fn config(
    random: &mut Random,
    from: &'static str,
    to: &'static str,
    gentle: bool,
) -> Config {
    let mut config = Config {
        codecs: Vec::new(),
        steps: Vec::new(),
        stored: from,
    };
    let push = |config: &mut Config, (json, step): (Json, Step)| {
        config.codecs.push(json);
        config.steps.push(step);
    };
    let mut t = from;
    if random.chance(75) {
        push(&mut config, scale_offset(random, t, gentle));
    }
    if random.chance(35) {
        let middle = random.pick(&TYPES);
        push(&mut config, cast_value(random, t, middle, gentle));
        t = middle;
        if random.chance(30) {
            push(&mut config, scale_offset(random, t, gentle));
        }
    }
    if config.steps.is_empty() || random.chance(85) {
        push(&mut config, cast_value(random, t, to, gentle));
        t = to;
    }
    config.stored = t;
    config
}
