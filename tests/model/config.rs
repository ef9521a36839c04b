//! Random configurations of both codecs, for `tests/model.rs`.

use serde_json::{Value as Json, json};

use crate::reference::cast::CastModel;
use crate::reference::scale_offset::ScaleOffsetModel;
use crate::reference::{OutOfRangeMode, RefValue, RoundingMode, decode, is_integer};
use crate::values::{Random, element, same_number, scalar};

/// A random configuration of both codecs for `from` → `to`.
pub(crate) struct Config {
    pub(crate) codecs: Vec<Json>,
    pub(crate) scale_offset: Option<ScaleOffsetModel>,
    pub(crate) cast: Option<CastModel>,
}

fn usable_parameter(value: RefValue, scale: bool) -> bool {
    match value {
        RefValue::Int(i) => !scale || i != 0,
        RefValue::Float(x) => !scale || x != 0.0,
        _ => false,
    }
}

/// A random configuration; `gentle` ones use moderate parameters and an out-of-range mode, so
/// that most of their writes succeed.
pub(crate) fn config(
    random: &mut Random,
    from: &'static str,
    to: &'static str,
    gentle: bool,
) -> Config {
    let mut codecs = Vec::new();
    let scale_offset = random.chance(75).then(|| {
        let mut configuration = serde_json::Map::new();
        let mut parameters = [None, None];
        for (i, key) in ["offset", "scale"].into_iter().enumerate() {
            let bits = element(random, from, gentle);
            if random.chance(80) && usable_parameter(decode(from, bits), i == 1) {
                configuration.insert(key.to_string(), scalar(from, bits));
                parameters[i] = Some(decode(from, bits));
            }
        }
        codecs.push(json!({"name": "scale_offset", "configuration": configuration}));
        ScaleOffsetModel::new(from, parameters[0], parameters[1])
    });
    let cast = (scale_offset.is_none() || random.chance(85)).then(|| {
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
        for (direction, (key_type, value_type)) in [(from, to), (to, from)].into_iter().enumerate()
        {
            for _ in 0..if gentle { 0 } else { random.below(3) } {
                let (key, value) = (
                    element(random, key_type, false),
                    element(random, value_type, false),
                );
                json_maps[direction]
                    .push(json!([scalar(key_type, key), scalar(value_type, value)]));
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
        codecs.push(json!({"name": "cast_value", "configuration": configuration}));
        let [encode, decode] = maps;
        CastModel::new(from, to, rounding.0, oor).with_maps(encode, decode)
    });
    Config {
        codecs,
        scale_offset,
        cast,
    }
}
