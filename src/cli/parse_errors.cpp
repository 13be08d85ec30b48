#include "cli/parse_errors.hpp"

#include <algorithm>
#include <regex>

#include "core/text.hpp"

namespace kk3::cli {
namespace {

/// The visible option names of `a` ("--variants", "-j"); long ones only with `long_only`.
std::vector<std::string> option_names(const CLI::App& a, bool long_only) {
  std::vector<std::string> out;
  for (const CLI::Option* o : a.get_options()) {
    if (o->get_group().empty()) continue;  // hidden (internal) options are never suggested
    for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
    if (!long_only) {
      for (const std::string& s : o->get_snames()) out.push_back("-" + s);
    }
  }
  return out;
}

/// "list has no option --variant (did you mean --variants?)"; `word` may carry "=VALUE".
std::string unknown_option(const std::string& who, const std::string& word, const CLI::App& app,
                           const CLI::App* command) {
  const std::string name = word.substr(0, word.find('='));
  const bool long_form = name.rfind("--", 0) == 0;
  std::vector<std::string> candidates =
      command ? option_names(*command, long_form) : std::vector<std::string>{};
  for (const std::string& g : option_names(app, long_form))
    candidates.push_back(g);  // global ones work after it too
  const std::string near = nearest_word(name, candidates);
  return who + " has no option " + name + (near.empty() ? "" : " (did you mean " + near + "?)");
}

/// The option called `name` ("--jobs", or a positional's name) of the subcommand, else global.
const CLI::Option* find_option(const CLI::App& app, const CLI::App* command,
                               const std::string& name) {
  if (command) {
    if (const CLI::Option* o = command->get_option_no_throw(name)) return o;
  }
  return app.get_option_no_throw(name);
}

/// The option's description up to its first clause, for a message: ": output folder".
std::string described(const CLI::Option* o) {
  if (!o || o->get_description().empty()) return "";
  const std::string& d = o->get_description();
  return ": " + d.substr(0, std::min({d.find("; "), d.find(". "), d.find(": ")}));
}

/// What a value of the option must be, by CLI11's type name.
std::string expected_value(const CLI::Option* o) {
  if (o && o->get_items_expected_max() == 0) return "no value (it is a flag)";
  const std::string type = o ? o->get_type_name() : "";
  if (type == "UINT") return "a whole number of at least 0";
  if (type == "INT") return "an integer";
  if (type == "FLOAT" || type == "NUMBER") return "a number";
  return type.empty() ? "another value" : "a value of type " + type;
}

std::string quoted_list(const std::vector<std::string>& words) {
  std::vector<std::string> q;
  for (const std::string& w : words) q.push_back("'" + w + "'");
  return join(q, ", ");
}

/// Unknown options and surplus arguments, each named.
std::string extras_message(const std::string& who, const std::vector<std::string>& extras,
                           const CLI::App& app, const CLI::App* command) {
  std::vector<std::string> parts, surplus;
  for (const std::string& x : extras) {
    if (x.size() > 1 && x[0] == '-') {
      parts.push_back(unknown_option(who, x, app, command));
    } else {
      surplus.push_back(x);
    }
  }
  if (!surplus.empty()) {
    std::vector<std::string> takes;
    if (command) {
      for (const CLI::Option* o : command->get_options()) {
        if (o->get_positional() && !o->nonpositional()) takes.push_back(o->get_name(true));
      }
    }
    if (takes.empty()) {
      parts.push_back(who + " takes no arguments (" + quoted_list(surplus) + " given)");
    } else {
      parts.push_back(who + " takes " + join(takes, ", ") + ": " + quoted_list(surplus) +
                      (surplus.size() == 1 ? " is one too many" : " are too many"));
    }
  }
  return join(parts, "; ");
}

}  // namespace

std::string parse_error_message(const CLI::ParseError& e, const CLI::App& app,
                                const CLI::App* command) {
  const std::string what = e.what();
  const std::string who = command ? command->get_name() : "kk3tune";
  std::smatch m;
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const std::vector<std::string> extras = app.remaining(true);
    if (!extras.empty()) return extras_message(who, extras, app, command);
  } else if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    static const std::regex required("(\\S+) is required");
    if (std::regex_match(what, m, required)) {
      const CLI::Option* o = find_option(app, command, m[1]);
      const bool positional = o && !o->nonpositional();
      return who + " needs " + (positional ? "its argument " : "") + m[1].str() + described(o);
    }
  } else if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    static const std::regex convert("Could not convert: (\\S+) = (.*)");
    static const std::regex not_allowed("The value (.*) is not an allowed value for (\\S+)");
    static const std::regex flag_input("(\\S+): too many inputs for a flag");
    static const std::regex true_false("(\\S+): Should be true/false or a number");
    if (std::regex_match(what, m, convert)) {
      return m[1].str() + ": '" + m[2].str() + "': expected " +
             expected_value(find_option(app, command, m[1]));
    }
    if (std::regex_match(what, m, not_allowed))
      return m[2].str() + ": '" + m[1].str() + "' is not allowed";
    if (std::regex_match(what, m, flag_input)) return m[1].str() + " is a flag: it takes no value";
    if (std::regex_match(what, m, true_false))
      return m[1].str() + ": expected true or false (or no value)";
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    static const std::regex missing("(\\S+): [0-9]+ required \\S+ missing");
    static const std::regex exactly("Expected exactly ([0-9]+) arguments to (\\S+), got ([0-9]+)");
    if (std::regex_match(what, m, missing)) {
      const CLI::Option* o = find_option(app, command, m[1]);
      const bool text = !o || o->get_type_name() == "TEXT" || o->get_type_name().empty();
      return m[1].str() + " needs a value" + (text ? "" : ": " + expected_value(o));
    }
    if (std::regex_match(what, m, exactly))
      return m[2].str() + " takes " + m[1].str() + " value(s), not " + m[3].str();
  } else if (dynamic_cast<const CLI::ValidationError*>(&e)) {
    static const std::regex member("(\\S+): (.*) not in \\{(.*)\\}");
    static const std::regex range("(\\S+): Value (.*) not in range (.*) to (.*)");
    if (std::regex_match(what, m, member)) {
      return m[1].str() + ": '" + m[2].str() + "': expected one of " +
             join(split(m[3].str(), ','), ", ");
    }
    if (std::regex_match(what, m, range))
      return m[1].str() + ": '" + m[2].str() + "': expected " + m[3].str() + " to " + m[4].str();
  } else if (dynamic_cast<const CLI::ExcludesError*>(&e)) {
    static const std::regex excludes("(\\S+) excludes (\\S+)");
    if (std::regex_match(what, m, excludes))
      return m[1].str() + " and " + m[2].str() + ": choose one";
  } else if (dynamic_cast<const CLI::RequiresError*>(&e)) {
    static const std::regex requires_other("(\\S+) requires (\\S+)");
    if (std::regex_match(what, m, requires_other))
      return m[1].str() + " needs " + m[2].str() + " too";
  }
  return what;
}

std::string unknown_global_option(const CLI::App& app, const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' || a == "--") continue;
    const CLI::Option* o = app.get_option_no_throw(a.substr(0, a.find('=')));
    if (!o) return unknown_option("kk3tune", a, app, nullptr);
    if (o->get_items_expected_max() > 0 && a.find('=') == std::string::npos) ++i;  // its value
  }
  return "";
}

}  // namespace kk3::cli
