// SPDX-License-Identifier: MIT
#include "ui/figures/familiesfigure.h"

#include "core/encodingregistry.h"
#include "ui/render/figuretitle.h"

#include <algorithm>

namespace poslab::ui {

namespace {

// The axes in teaching order; only the values some scheme has are drawn.
constexpr core::Relation relationOrder[] = {core::Relation::None, core::Relation::Absolute, core::Relation::Relative,
                                            core::Relation::Contextual, core::Relation::Mixed};
constexpr core::Application applicationOrder[] = {core::Application::Embedding, core::Application::QueryKeyRotation,
                                                  core::Application::ScoreBias, core::Application::KeysValues,
                                                  core::Application::Mixed,     core::Application::Nothing};

/// The values of @p order that some scheme has, by @p field.
template <class Enum, std::size_t N, class Field> std::vector<Enum> shown(const Enum (&order)[N], Field field)
{
    std::vector<Enum> out;
    for (Enum v : order)
        if (std::any_of(core::schemes().begin(), core::schemes().end(), [&](const auto& s) { return field(s) == v; }))
            out.push_back(v);
    return out;
}

template <class Enum> int indexOf(const std::vector<Enum>& values, Enum v)
{
    return int(std::find(values.begin(), values.end(), v) - values.begin());
}

} // namespace

FamiliesFigure::Inputs FamiliesFigure::inputsOf(const FigureSnapshot& s)
{
    return {s.setup.scheme};
}

FamiliesData FamiliesFigure::compute(const Inputs& in)
{
    FamiliesData d;
    d.columns = shown(relationOrder, [](const core::SchemeDescriptor& s) { return s.relation; });
    d.rows = shown(applicationOrder, [](const core::SchemeDescriptor& s) { return s.application; });
    for (const core::SchemeDescriptor& s : core::schemes())
        d.chips.push_back({QString::fromStdString(s.id), shortSchemeName(s), QString::number(s.year), s.origin,
                           indexOf(d.columns, s.relation), indexOf(d.rows, s.application), s.id == in.scheme});
    return d;
}

core::ComputeResult FamiliesFigure::dataExport(const FigureSnapshot&, QStringList*)
{
    core::ComputeResult c;
    c.quantity = "families";
    c.axes = {"scheme", "field"};
    c.columns = {"relation", "application", "origin", "year"};
    c.columnLabels = {"relation: 0 none, 1 absolute, 2 relative, 3 contextual, 4 mixed",
                      "application: 0 nothing, 1 embedding, 2 query/key rotation, 3 score bias, 4 keys/values, 5 mixed",
                      "origin: 0 none, 1 fixed, 2 learned, 3 mixed", "year of the cited paper"};
    for (const core::SchemeDescriptor& s : core::schemes()) {
        c.data.insert(c.data.end(),
                      {double(int(s.relation)), double(int(s.application)), double(int(s.origin)), double(s.year)});
        c.labels.push_back({"axes_" + s.id,
                            std::string(core::relationName(s.relation)) + ", "
                                + std::string(core::applicationName(s.application)) + ", "
                                + std::string(core::originName(s.origin)) + ", " + std::to_string(s.year)});
    }
    c.shape = {core::schemes().size(), 4};
    return c;
}

} // namespace poslab::ui
